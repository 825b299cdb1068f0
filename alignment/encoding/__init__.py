"""Contextual encoders: loading any HF encoder, subword pooling, NORM heads, TEXT
normalisation, and Joint-Align's losses for fine-tuning the encoder itself."""
