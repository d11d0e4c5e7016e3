"""Plain-file tables (TOML) for the three systems; a package only so that installs carry the files."""
