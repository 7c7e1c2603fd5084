//! Deterministic synthetic embeddings for tests and benches of the vector index: a tiny seeded
//! PRNG (splitmix64) and a generator of unit vectors clustered the way sentence embeddings are.
//!
//! Uniform random unit vectors are a poor stand-in for real embeddings: in high dimension they
//! are all nearly orthogonal, nearest neighbours are barely nearer than anything else, and HNSW
//! recall on them is a worst case that real catalogs never show. Real embeddings sit in topical
//! clusters (paraphrases at cosine 0.5-0.8) on top of a shared direction (unrelated sentences
//! still have cosine ~0.1-0.2), and that is what [`Clustered`] reproduces.
//!
//! No crate is used on purpose: the same seed must give the same vectors on every machine and
//! every version, which a third-party RNG does not promise across releases.

/// splitmix64 (Steele, Lea, Flood 2014): one u64 of state, passes BigCrush, trivially seedable.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits (all a f64 mantissa holds).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in 0..n (n > 0). The modulo bias is below 2^-40 for any n we use; irrelevant here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Standard normal by Box-Muller (one of the pair is dropped: simplicity over speed).
    pub fn gaussian(&mut self) -> f64 {
        // 1 - u is in (0, 1], so ln never sees 0.
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A uniformly distributed unit vector (normalised isotropic gaussian).
    pub fn unit_vector(&mut self, dim: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dim).map(|_| self.gaussian() as f32).collect();
        normalise(&mut v);
        v
    }
}

/// Scales `v` to unit L2 norm in place (norm summed in f64); a zero vector stays zero.
pub fn normalise(v: &mut [f32]) {
    let norm = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if norm > 0.0 {
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// Clustered unit vectors, in two levels like a tool catalog's passages: cluster centroids
/// share a global direction (so unrelated vectors keep a small positive cosine, as real
/// embeddings do), an owner's centre is drawn around a centroid, and each of its vectors around
/// that centre. Every draw is `normalise(centre + sigma * gaussian)`.
#[derive(Debug, Clone)]
pub struct Clustered {
    dim: usize,
    /// Spread of owner centres around their centroid.
    sigma_cluster: f64,
    /// Spread of an owner's vectors around its centre.
    sigma_owner: f64,
    centroids: Vec<Vec<f32>>,
}

/// The noise scale s for which two draws `normalise(c + s*g)` around a unit `c` have cosine
/// `cosine`: in high dimension their squared norms are ~ 1 + s^2*dim and their dot ~ 1, so the
/// cosine is ~ 1 / (1 + s^2*dim). Solving for s makes tightness independent of `dim`.
fn sigma_for(cosine: f64, dim: usize) -> f64 {
    ((1.0 / cosine - 1.0) / dim as f64).sqrt()
}

impl Clustered {
    /// `owner_cosine`: typical cosine of two owner centres in one cluster; `vector_cosine`:
    /// typical cosine of two vectors of one owner (two vectors of different owners in one
    /// cluster then have ~ their product); `inter_cosine`: typical cosine of two centroids.
    /// All in [0, 1), the first two above 0.
    pub fn new(
        seed: u64,
        dim: usize,
        clusters: usize,
        owner_cosine: f64,
        vector_cosine: f64,
        inter_cosine: f64,
    ) -> Self {
        assert!(dim > 0 && clusters > 0, "dim and clusters must be positive");
        for c in [owner_cosine, vector_cosine] {
            assert!(c > 0.0 && c < 1.0, "cosines must be in (0, 1)");
        }
        assert!((0.0..1.0).contains(&inter_cosine));
        let mut rng = SplitMix64::new(seed);
        let global = rng.unit_vector(dim);
        // normalise(a*global + b*random) with a^2 = inter, b^2 = 1 - inter: two such centroids
        // have cosine ~ a^2 = inter (the random parts are nearly orthogonal).
        let (a, b) = (
            inter_cosine.sqrt() as f32,
            (1.0 - inter_cosine).sqrt() as f32,
        );
        let centroids = (0..clusters)
            .map(|_| {
                let r = rng.unit_vector(dim);
                let mut c: Vec<f32> = global.iter().zip(&r).map(|(g, r)| a * g + b * r).collect();
                normalise(&mut c);
                c
            })
            .collect();
        Clustered {
            dim,
            sigma_cluster: sigma_for(owner_cosine, dim),
            sigma_owner: sigma_for(vector_cosine, dim),
            centroids,
        }
    }

    /// The settings the benches and tests use: 300 clusters; owners of one cluster at cosine
    /// ~0.8, vectors of one owner at ~0.8, so vectors of one cluster at ~0.65; centroids at
    /// ~0.15 (roughly what all-MiniLM-L6-v2 shows on tool descriptions and their passages).
    pub fn embedding_like(seed: u64, dim: usize) -> Self {
        Clustered::new(seed, dim, 300, 0.8, 0.8, 0.15)
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn clusters(&self) -> usize {
        self.centroids.len()
    }

    /// The centre of a new owner in cluster `cluster` (taken modulo the number of clusters).
    pub fn owner_centre(&self, rng: &mut SplitMix64, cluster: usize) -> Vec<f32> {
        let c = &self.centroids[cluster % self.centroids.len()];
        around(rng, c, self.sigma_cluster)
    }

    /// One vector of the owner centred at `centre`.
    pub fn vector_of(&self, rng: &mut SplitMix64, centre: &[f32]) -> Vec<f32> {
        around(rng, centre, self.sigma_owner)
    }

    /// One vector of a new owner in cluster `cluster`.
    pub fn sample(&self, rng: &mut SplitMix64, cluster: usize) -> Vec<f32> {
        let centre = self.owner_centre(rng, cluster);
        self.vector_of(rng, &centre)
    }

    /// One vector of a new owner in a random cluster: what a query looks like.
    pub fn random(&self, rng: &mut SplitMix64) -> Vec<f32> {
        let cluster = rng.below(self.centroids.len());
        self.sample(rng, cluster)
    }

    /// `owners` owners with `per_owner` vectors each, as `(owner, vector)` in owner order, each
    /// owner in a random cluster.
    pub fn owners(
        &self,
        rng: &mut SplitMix64,
        owners: usize,
        per_owner: usize,
    ) -> Vec<(u32, Vec<f32>)> {
        let mut out = Vec::with_capacity(owners * per_owner);
        for owner in 0..owners {
            let cluster = rng.below(self.centroids.len());
            let centre = self.owner_centre(rng, cluster);
            for _ in 0..per_owner {
                out.push((owner as u32, self.vector_of(rng, &centre)));
            }
        }
        out
    }
}

/// `normalise(centre + sigma * gaussian)`.
fn around(rng: &mut SplitMix64, centre: &[f32], sigma: f64) -> Vec<f32> {
    let mut v: Vec<f32> = centre
        .iter()
        .map(|&x| (f64::from(x) + sigma * rng.gaussian()) as f32)
        .collect();
    normalise(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum()
    }

    #[test]
    fn same_seed_same_vectors() {
        let a = Clustered::embedding_like(7, 16);
        let b = Clustered::embedding_like(7, 16);
        let (mut ra, mut rb) = (SplitMix64::new(1), SplitMix64::new(1));
        assert_eq!(a.owners(&mut ra, 5, 2), b.owners(&mut rb, 5, 2));
    }

    #[test]
    fn cosines_look_like_embeddings() {
        let g = Clustered::embedding_like(3, 384);
        let mut rng = SplitMix64::new(9);
        let (mut owner, mut cluster, mut inter) = (0.0, 0.0, 0.0);
        let n = 200;
        for i in 0..n {
            let centre = g.owner_centre(&mut rng, i);
            let (a, b) = (
                g.vector_of(&mut rng, &centre),
                g.vector_of(&mut rng, &centre),
            );
            let (c, d) = (g.sample(&mut rng, i), g.sample(&mut rng, i + 1));
            assert!((cos(&a, &a) - 1.0).abs() < 1e-5);
            owner += cos(&a, &b);
            cluster += cos(&a, &c);
            inter += cos(&a, &d);
        }
        let [owner, cluster, inter] = [owner, cluster, inter].map(|x| x / n as f64);
        assert!((0.75..0.85).contains(&owner), "same-owner cosine {owner}");
        assert!(
            (0.55..0.75).contains(&cluster),
            "same-cluster cosine {cluster}"
        );
        assert!((0.0..0.3).contains(&inter), "other-cluster cosine {inter}");
    }
}
