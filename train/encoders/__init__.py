"""Models beside the mappings: a fine-tuned encoder's export (``export``) and the small causal
LM for XMoverScore's fluency term (``language_model``)."""
