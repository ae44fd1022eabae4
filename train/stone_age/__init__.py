"""Stone Age's training parts (its row's ``train_env``, ``win_rate``, ``train_check``)."""
