"""What a fit reads: paired word vectors (``paired``), unpaired pools (``unpaired``), parallel
text for fine-tuning an encoder (``parallel_text``), and the encoding and batching under them."""
