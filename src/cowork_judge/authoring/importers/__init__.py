"""Importers: convert public rubric formats into this package's rubric format (SPEC §19).

Each importer is a pure function from the public document to rubric rows (and, where the
format has them, the prompt and a reference response). Nothing here is used at judge time.
"""
