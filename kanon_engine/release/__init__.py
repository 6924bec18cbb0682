"""The release side: building the release, the one guarded atomic writer, export formats."""
