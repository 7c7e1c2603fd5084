//! Search indexes (being built): vector and keyword.
