"""Text and vectors in: parallel and monolingual corpora (the Bible test bed), tokenisation,
word alignment, lexicons, encoded word vectors and their cache, the CBLI simulation."""
