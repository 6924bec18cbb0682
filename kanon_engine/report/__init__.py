"""The de-identification report: facts computed from the release, sentences, charts, HTML, PDF."""
