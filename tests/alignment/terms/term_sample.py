"""A fixed sample for every shipped export's pair: three sources and three outputs — two
translations and one source left untranslated (so every term, the target-language share
included, sees a good and a bad output). ``term_values.json`` holds every term's values of
every shipped export on it, written by ``python -m tests.alignment.terms.term_sample FILE``
(at 7c22819, before terms became modules)."""
from __future__ import annotations

import json
import sys

SENTENCES = {
    "en": ["The cat is sleeping on the sofa.", "The train arrived two hours late.",
           "We ate in the garden yesterday."],
    "de": ["Die Katze schläft auf dem Sofa.", "Der Zug kam zwei Stunden zu spät an.",
           "Wir haben gestern im Garten gegessen."],
    "cs": ["Kočka spí na gauči.", "Vlak přijel o dvě hodiny později.",
           "Včera jsme jedli na zahradě."],
    "fi": ["Kissa nukkuu sohvalla.", "Juna saapui kaksi tuntia myöhässä.",
           "Söimme eilen puutarhassa."],
    "lv": ["Kaķis guļ uz dīvāna.", "Vilciens ieradās divas stundas vēlāk.",
           "Vakar mēs ēdām dārzā."],
    "ru": ["Кошка спит на диване.", "Поезд опоздал на два часа.", "Вчера мы ели в саду."],
    "tr": ["Kedi kanepede uyuyor.", "Tren iki saat geç geldi.", "Dün bahçede yemek yedik."],
    "zh": ["猫在沙发上睡觉。", "火车晚点了两个小时。", "我们昨天在花园里吃饭。"],
    "et": ["Kass magab diivanil.", "Rong jõudis kaks tundi hiljem.", "Me sõime eile aias."],
    "ne": ["बिरालो सोफामा सुतिरहेको छ।", "रेल दुई घण्टा ढिलो आइपुग्यो।",
           "हामीले हिजो बगैंचामा खाना खायौं।"],
    "ro": ["Pisica doarme pe canapea.", "Trenul a sosit cu două ore întârziere.",
           "Ieri am mâncat în grădină."],
    "si": ["බළලා සෝෆාව මත නිදාගෙන සිටී.", "දුම්රිය පැය දෙකක් ප්‍රමාද විය.", "අපි ඊයේ වත්තේ කෑවා."],
    "es": ["El gato duerme en el sofá.", "El tren llegó dos horas tarde.",
           "Ayer comimos en el jardín."],
}


def sample_for(name: str) -> tuple[list[str], list[str]]:
    """The sources and outputs for the export ``name`` (``BENCHMARK/SRC-TGT``)."""
    src, tgt = name.split("/")[1].split("-")
    return SENTENCES[src], SENTENCES[tgt][:2] + SENTENCES[src][2:]


def term_values(names: list[str]) -> dict:
    """Every computed term's values, the scores and the signature of each export by name."""
    from alignment.xmover.scorer import XMoverScorer

    out = {}
    for name in names:
        result = XMoverScorer(name).score(*sample_for(name))
        out[name] = {"final": result.final.tolist(), "signature": result.signature,
                     "values": {k: [float(x) for x in v] for k, v in result.values.items()}}
    return out


if __name__ == "__main__":
    from alignment.export.named import export_names

    with open(sys.argv[1], "w", encoding="utf-8") as fh:
        json.dump(term_values(export_names()), fh, indent=1, ensure_ascii=False)
