"""Training translators: (question, program) pairs, augmentation, fine-tuning and export."""
