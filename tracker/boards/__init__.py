"""Board topology data files (one JSON per board), generated once and committed."""
