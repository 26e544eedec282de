"""What a person runs: the arena, terminal play, game records and replays, the warm-up, the CLI."""
