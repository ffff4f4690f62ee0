"""Batches: judge many instances with one command — discovery, fingerprints, limits and the
resume state (`instances`), and the runner that launches ``cowork-judge run`` per instance (`runner`)."""
