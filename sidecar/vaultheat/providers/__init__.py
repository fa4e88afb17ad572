"""Model seams: embedders, rerankers and generators behind small protocols, with fakes."""
