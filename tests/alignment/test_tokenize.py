from alignment.data.tokenize import Tokenizer


def test_punctuation_is_split_and_words_keep_accents():
    assert Tokenizer()("¡Oh Jehová, cuánto!") == ["¡", "Oh", "Jehová", ",", "cuánto", "!"]


def test_inner_apostrophes_and_hyphens_stay_in_the_word():
    assert Tokenizer()("God’s well-known word's") == ["God’s", "well-known", "word's"]


def test_lowercase_option_and_nfc():
    decomposed = "cancio\u0301n"  # n + combining acute
    assert Tokenizer(lowercase=True)("Canción " + decomposed) == ["canción", "canción"]
    assert Tokenizer().settings() != Tokenizer(lowercase=True).settings()
