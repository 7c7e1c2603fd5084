//! Vendor secret kinds: cloud providers, source hosting and CI, package registries,
//! payments, chat and mail, AI providers, observability and productivity SaaS. Each row is
//! a vendor prefix or fixed structure, or (`semi!`) the vendor's name in the key right
//! before a value of the vendor's exact shape.

use super::patterns::{k, v, Kind};

/// A vendor keyword in the key (`DATADOG_API_KEY=`, `"fastlyToken": `), an assignment, and
/// a value of the vendor's exact shape. The value must end at a word boundary.
macro_rules! semi {
    ($kw:literal, $value:literal) => {
        concat!(
            r"(?i:",
            $kw,
            r")[A-Za-z0-9_.-]{0,24}[\x22'\x60]?[ \t]{0,3}(?::=|=>|=|:|,)[ \t]{0,3}[\x22'\x60]?(?P<s>",
            $value,
            r")\b"
        )
    };
}

/// Cloud providers and infrastructure.
pub(super) const CLOUD: &[Kind] = &[
    k(
        "AWSACCESSKEYID",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
    ),
    k(
        "AWSSECRETACCESSKEY",
        r"(?i:(?:aws)?[_.-]?secret[_.-]?(?:access)?[_.-]?key)[\x22'\x60]?\s*(?::=|=>|=|:)\s*[\x22'\x60]?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
    ),
    k(
        "AWSSESSIONTOKEN",
        r"\b(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{100,}",
    ),
    k(
        "AWSSESSIONTOKEN",
        r"(?i:session[_.-]?token)[\x22']?\s*(?::=|=|:)\s*[\x22']?(?P<s>[A-Za-z0-9/+=]{100,})",
    ),
    k(
        "AWSMWSKEY",
        r"\bamzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    ),
    k("AWSBEDROCKAPIKEY", r"\bABSK[A-Za-z0-9+/]{100,}={0,2}"),
    k("GOOGLEAPIKEY", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    k("GOOGLEOAUTHCLIENTSECRET", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b"),
    k("GOOGLEOAUTHTOKEN", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    k("GOOGLEREFRESHTOKEN", r"\b1//0[A-Za-z0-9_-]{40,}"),
    k(
        "FIREBASECLOUDMESSAGINGKEY",
        r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
    ),
    k(
        "AZUREACCOUNTKEY",
        r"(?i:AccountKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{40,100}={0,2})",
    ),
    k(
        "AZURESHAREDACCESSKEY",
        r"(?i:SharedAccessKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{40,100}={0,2})",
    ),
    k(
        "AZURESASTOKEN",
        r"(?i:SharedAccessSignature)(?:\s*=\s*|\s+)(?P<s>[^;\s\x22'<>]{20,})",
    ),
    k(
        "AZURESASTOKEN",
        r"[?&;\s\x22'](?:sig)=(?P<s>[A-Za-z0-9%+/]{40,120}(?:=|%3[Dd]){0,2})",
    ),
    k(
        "AZURECOSMOSKEY",
        r"(?i:(?:primary|secondary)(?:master|readonly(?:master)?)?key)[\x22']?\s*[:=]\s*[\x22']?(?P<s>[A-Za-z0-9+/]{86}==)",
    ),
    k(
        "AZURECLIENTSECRET",
        r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    ),
    k("AZUREDEVOPSPAT", r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b"),
    k("AZUREAPIKEY", semi!("azure", r"[a-f0-9]{32}")),
    k("ALIBABAACCESSKEYID", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    k("ALIBABASECRET", semi!("alibaba|aliyun", r"[A-Za-z0-9]{30}")),
    k("TENCENTSECRETID", r"\bAKID[A-Za-z0-9]{32}\b"),
    k("IBMCLOUDAPIKEY", semi!("ibm", r"[A-Za-z0-9_-]{44}")),
    k(
        "CLOUDFLAREORIGINCAKEY",
        r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b",
    ),
    k(
        "CLOUDFLAREAPITOKEN",
        semi!("cloudflare|cf_api|cf_token", r"[A-Za-z0-9_-]{40}"),
    ),
    k(
        "CLOUDFLAREGLOBALAPIKEY",
        semi!("cloudflare|cf_api", r"[a-f0-9]{37}"),
    ),
    k("FASTLYAPITOKEN", semi!("fastly", r"[A-Za-z0-9_-]{32}")),
    k("DIGITALOCEANTOKEN", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    k("LINODETOKEN", semi!("linode", r"[a-f0-9]{64}")),
    k("HEROKUAPIKEY", r"\bHRKU-[A-Za-z0-9_-]{58,64}\b"),
    k(
        "HEROKUAPIKEY",
        semi!(
            "heroku",
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        ),
    ),
    k("VERCELTOKEN", r"\bvc[pikarc]_[A-Za-z0-9]{24,}\b"),
    k("VERCELTOKEN", semi!("vercel", r"[A-Za-z0-9]{24}")),
    k("NETLIFYTOKEN", r"\bnfp_[A-Za-z0-9]{36,40}\b"),
    k("NETLIFYTOKEN", semi!("netlify", r"[A-Za-z0-9_-]{40,46}")),
    k(
        "SUPABASETOKEN",
        r"\b(?:sbp_(?:oauth_)?[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})",
    ),
    k(
        "PLANETSCALETOKEN",
        r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}",
    ),
    k("NEONAPIKEY", r"\bnapi_[a-z0-9]{64}\b"),
    k("RENDERAPIKEY", r"\brnd_[A-Za-z0-9]{32}\b"),
    k(
        "FLYIOTOKEN",
        r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_-]{100,})",
    ),
    k("DATABRICKSTOKEN", r"\bdapi[a-f0-9]{32}(?:-[0-9]+)?\b"),
    k(
        "DOPPLERTOKEN",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b",
    ),
    k("VAULTTOKEN", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    k(
        "TERRAFORMCLOUDTOKEN",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}\b",
    ),
    k("PULUMITOKEN", r"\bpul-[a-f0-9]{40}\b"),
    k(
        "TAILSCALEKEY",
        r"\btskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}",
    ),
    k("PREFECTAPIKEY", r"\bpnu_[A-Za-z0-9]{36}\b"),
];

/// Source hosting, CI and package registries.
pub(super) const DEV: &[Kind] = &[
    k("GITHUBTOKENS", r"\bghp_[A-Za-z0-9]{36,255}\b"),
    k("GITHUBOAUTHTOKEN", r"\bgho_[A-Za-z0-9]{36,255}\b"),
    k("GITHUBAPPTOKEN", r"\bgh[us]_[A-Za-z0-9]{36,255}\b"),
    k("GITHUBREFRESHTOKEN", r"\bghr_[A-Za-z0-9]{36,255}\b"),
    k(
        "GITHUBFINEGRAINEDPAT",
        r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,}\b",
    ),
    k(
        "GITLABTOKEN",
        r"\bgl(?:pat|dt|ptt|ft|cbt|oas|agent|soat|imt|ffct|wt)-[A-Za-z0-9_-]{20,}",
    ),
    k(
        "GITLABRUNNERTOKEN",
        r"\b(?:glrt-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})",
    ),
    k("BITBUCKETAPPPASSWORD", r"\bATBB[A-Za-z0-9_=.-]{28,}"),
    k("ATLASSIANTOKEN", r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}"),
    k(
        "CIRCLECITOKEN",
        r"\bCCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
    ),
    k("CIRCLECITOKEN", semi!("circle", r"[a-f0-9]{40}")),
    k("TRAVISCITOKEN", semi!("travis", r"[A-Za-z0-9_-]{22}")),
    k("BUILDKITETOKEN", r"\bbkua_[a-f0-9]{40}\b"),
    k(
        "SOURCEGRAPHTOKEN",
        r"\bsgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}\b",
    ),
    k("SONARTOKEN", r"\bsq[uap]_[a-f0-9]{40}\b"),
    k("POSTMANAPIKEY", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    k("NPMTOKEN", r"\bnpm_[A-Za-z0-9]{36}\b"),
    v(
        "NPMRCAUTHTOKEN",
        r"(?:^|[\s:/])(?:_auth(?:Token)?|npmAuth(?:Token|Ident))\s*[=:]\s*[\x22']?(?P<s>[^\s\x22']{8,})",
    ),
    k("PYPITOKEN", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    k("RUBYGEMSTOKEN", r"\brubygems_[a-f0-9]{48}\b"),
    k("NUGETAPIKEY", r"\boy2[a-z0-9]{43}\b"),
    k("CRATESIOTOKEN", r"\bcio[A-Za-z0-9]{32}\b"),
    k("DOCKERHUBTOKEN", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    k(
        "JFROGAPIKEY",
        r"(?:^|[^A-Za-z0-9+/])(?P<s>AKCp[A-Za-z0-9]{69})(?:[^A-Za-z0-9+/=]|$)",
    ),
    k("JFROGREFERENCETOKEN", r"\bcmVmdGtu[A-Za-z0-9]{56,}\b"),
    k(
        "SNYKTOKEN",
        semi!(
            "snyk",
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        ),
    ),
    k(
        "ONEPASSWORDSERVICETOKEN",
        r"\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
    ),
    k("CONTENTFULTOKEN", r"\bCFPAT-[A-Za-z0-9_-]{43}\b"),
];

/// Payments, commerce, chat and mail providers.
pub(super) const SERVICES: &[Kind] = &[
    k(
        "STRIPEKEY",
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
    ),
    k("STRIPEWEBHOOKSECRET", r"\bwhsec_[A-Za-z0-9+/=]{24,}"),
    k(
        "SQUAREACCESSTOKEN",
        r"\b(?:EAAA[A-Za-z0-9_-]{60}|sq0atp-[A-Za-z0-9_-]{22})\b",
    ),
    k("SQUAREOAUTHSECRET", r"\bsq0csp-[A-Za-z0-9_-]{43}\b"),
    k(
        "BRAINTREEACCESSTOKEN",
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b",
    ),
    k(
        "PAYPALCLIENTSECRET",
        semi!("paypal|braintree", r"[A-Za-z0-9_-]{40,100}"),
    ),
    k("ADYENAPIKEY", semi!("adyen", r"AQE[A-Za-z0-9+/=_.-]{50,}")),
    k(
        "PLAIDACCESSTOKEN",
        r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    ),
    k("PLAIDSECRET", semi!("plaid", r"[a-f0-9]{30}")),
    k("SHOPIFYTOKEN", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    k(
        "SLACKCONFIGTOKEN",
        r"\bxoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9-]{60,}",
    ),
    k("SLACKTOKEN", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    k("SLACKAPPTOKEN", r"\bxapp-[0-9]-[A-Za-z0-9-]{20,}"),
    k(
        "SLACKWEBHOOK",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]+",
    ),
    k(
        "DISCORDWEBHOOK",
        r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/[0-9]+/[A-Za-z0-9_-]+",
    ),
    k(
        "DISCORDBOTTOKEN",
        r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
    ),
    k(
        "TEAMSWEBHOOK",
        r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]+",
    ),
    k(
        "ZAPIERWEBHOOK",
        r"https://hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]+",
    ),
    k("TELEGRAMBOTTOKEN", r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b"),
    k("TWILIOAPIKEY", r"\bSK[0-9a-fA-F]{32}\b"),
    k("TWILIOAUTHTOKEN", semi!("twilio", r"[a-f0-9]{32}")),
    k(
        "SENDGRIDAPIKEY",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    k("MAILGUNAPIKEY", r"\bkey-[0-9a-f]{32}\b"),
    k("MAILGUNAPIKEY", r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"),
    k("MAILCHIMPAPIKEY", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    k(
        "POSTMARKTOKEN",
        semi!(
            "postmark",
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        ),
    ),
    k(
        "RESENDAPIKEY",
        r"\bre_[A-Za-z0-9]{6,12}_[A-Za-z0-9]{16,32}\b",
    ),
    k(
        "BREVOAPIKEY",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
    ),
    k("MANDRILLAPIKEY", semi!("mandrill", r"[A-Za-z0-9_-]{22}")),
    // Alphanumeric only: a run inside base64 data (bounded by `+`, `/`, `=`) is not one.
    k(
        "FACEBOOKACCESSTOKEN",
        r"(?:^|[^A-Za-z0-9+/])(?P<s>EAA[BCGIJ][A-Za-z0-9]{80,})(?:[^A-Za-z0-9+/=]|$)",
    ),
    k(
        "TWITTERBEARERTOKEN",
        r"\bA{20,}[A-Za-z0-9]{4,}%[A-Za-z0-9%]{20,}",
    ),
];

/// AI model providers.
pub(super) const AI: &[Kind] = &[
    k("OPENAIPROJECTAPIKEY", r"\bsk-proj-[A-Za-z0-9_-]{20,}"),
    k(
        "OPENAISERVICEACCOUNTKEY",
        r"\bsk-svcacct-[A-Za-z0-9_-]{20,}",
    ),
    k("OPENAIADMINKEY", r"\bsk-admin-[A-Za-z0-9_-]{20,}"),
    k("ANTHROPICAPIKEY", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    k("OPENROUTERAPIKEY", r"\bsk-or-v1-[a-f0-9]{64}\b"),
    k(
        "OPENAIAPIKEY",
        r"\bsk-(?:[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})\b",
    ),
    k("HUGGINGFACETOKEN", r"\b(?:hf_|api_org_)[A-Za-z0-9]{34,}\b"),
    k("GROQAPIKEY", r"\bgsk_[A-Za-z0-9]{48,}\b"),
    k("REPLICATEAPITOKEN", r"\br8_[A-Za-z0-9]{37}\b"),
    k("PERPLEXITYAPIKEY", r"\bpplx-[A-Za-z0-9]{32,64}\b"),
    k("XAIAPIKEY", r"\bxai-[A-Za-z0-9]{70,90}\b"),
    k(
        "LANGSMITHAPIKEY",
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
    ),
    k("PINECONEAPIKEY", r"\bpcsk_[A-Za-z0-9_]{50,}"),
    k("COHEREAPIKEY", semi!("cohere|co_api", r"[A-Za-z0-9]{40}")),
    k("MISTRALAPIKEY", semi!("mistral", r"[A-Za-z0-9]{32}")),
    k("DEEPSEEKAPIKEY", semi!("deepseek", r"sk-[a-f0-9]{32}")),
];

/// Observability, identity and productivity SaaS.
pub(super) const SAAS: &[Kind] = &[
    k(
        "DATADOGKEY",
        semi!(
            "datadog|dd_api|dd_app|ddapi|ddapp",
            r"[a-f0-9]{32}|[a-f0-9]{40}"
        ),
    ),
    k("NEWRELICKEY", r"\bNR(?:AK|II|AA)-[A-Za-z0-9_-]{27,32}\b"),
    k("NEWRELICKEY", r"\bNRJS-[a-f0-9]{19}\b"),
    k("NEWRELICKEY", r"\b[a-f0-9]{36}NRAL\b"),
    k("SENTRYTOKEN", r"\bsntr[yu]s?_[A-Za-z0-9+/=_]{40,}"),
    k(
        "SENTRYDSN",
        r"https?://(?P<s>[a-f0-9]{32}(?::[a-f0-9]{32})?)@[A-Za-z0-9.-]+(?::[0-9]+)?/[0-9]+",
    ),
    k("GRAFANACLOUDTOKEN", r"\bglc_[A-Za-z0-9+/]{32,400}={0,2}"),
    k(
        "GRAFANASERVICEACCOUNTTOKEN",
        r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b",
    ),
    k("GRAFANAAPIKEY", r"\beyJrIjoi[A-Za-z0-9]{70,400}={0,2}"),
    k("HONEYCOMBKEY", r"\bhc[a-z]{2}k_[a-z0-9]{58}\b"),
    k(
        "HONEYCOMBKEY",
        semi!("honeycomb", r"[A-Za-z0-9]{22}|[A-Za-z0-9]{32}"),
    ),
    k(
        "PAGERDUTYTOKEN",
        semi!("pagerduty|pager_duty", r"[A-Za-z0-9_+-]{20}"),
    ),
    k("OKTATOKEN", semi!("okta", r"00[A-Za-z0-9_-]{40}")),
    k("AUTH0SECRET", semi!("auth0", r"[A-Za-z0-9_-]{32,64}")),
    k("LINEARAPIKEY", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    k(
        "NOTIONTOKEN",
        r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})\b",
    ),
    k("AIRTABLETOKEN", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
    k(
        "ASANATOKEN",
        r"\b[0-9]/[0-9]{16,}(?:/[0-9]{16,})?:[A-Za-z0-9]{32}\b",
    ),
    k("FIGMATOKEN", r"\bfig[dou]_[A-Za-z0-9_-]{40,}"),
    k("DROPBOXTOKEN", r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}"),
    k(
        "MAPBOXSECRETTOKEN",
        r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
    ),
    k("ALGOLIAAPIKEY", semi!("algolia", r"[a-f0-9]{32}")),
];
