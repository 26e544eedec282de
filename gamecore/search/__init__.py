"""Search and learning: MCTS and PUCT kernels, the agents, the value and AlphaZero nets, models."""
