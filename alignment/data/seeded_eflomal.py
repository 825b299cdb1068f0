"""A seed for eflomal's sampler: eflomal draws its seed from ``/dev/urandom`` and has no option
for one, so a tiny preload library answers that read with bytes derived from our seed.

With the seed fixed and one thread per sampler loop (OpenMP ``2,1``: the two directions in
parallel, each direction's samplers in a fixed order), eflomal's links are a function of the
corpus and the seed: the same on every run and every machine with the same eflomal build.
The library is compiled once per cache folder with the system's C compiler; where none is
found, :func:`seeded_environment` raises :class:`AlignerNotSeedable`.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from alignment.atomic import atomic_path

SEED_VARIABLE = "CROSSALIGN_ALIGN_SEED"
PROOF_VARIABLE = "CROSSALIGN_ALIGN_SEED_PROOF"  # where the library notes each seeded read

# Intercepts fopen("/dev/urandom") only; every other open goes to the C library.
_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef FILE *(*fopen_fn)(const char *, const char *);

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static FILE *seeded(const char *path, const char *mode, const char *name) {
    fopen_fn real = (fopen_fn)dlsym(RTLD_NEXT, name);
    const char *seed = getenv("SEED_VARIABLE");
    if (seed != NULL && path != NULL && strcmp(path, "/dev/urandom") == 0) {
        uint64_t x = strtoull(seed, NULL, 10);
        uint64_t *bytes = malloc(8 * sizeof(uint64_t));
        if (bytes == NULL) return NULL;
        for (int i = 0; i < 8; i++) bytes[i] = splitmix64(&x);
        const char *proof = getenv("PROOF_VARIABLE");
        if (proof != NULL) {  /* one line per seeded read: the caller counts them */
            FILE *log = real(proof, "a");
            if (log != NULL) { fputs("seeded\n", log); fclose(log); }
        }
        return fmemopen(bytes, 8 * sizeof(uint64_t), "r");
    }
    return real(path, mode);
}

FILE *fopen(const char *path, const char *mode) { return seeded(path, mode, "fopen"); }
FILE *fopen64(const char *path, const char *mode) { return seeded(path, mode, "fopen64"); }
""".replace("SEED_VARIABLE", SEED_VARIABLE).replace("PROOF_VARIABLE", PROOF_VARIABLE)

VERSION = hashlib.sha256(_SOURCE.encode()).hexdigest()[:12]


class AlignerNotSeedable(RuntimeError):
    """The preload library cannot be built or used here (no C compiler, not Linux)."""


def compiler() -> str | None:
    """The C compiler to build the library with: ``$CC``, else cc, gcc or clang on PATH."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def preload_library(cache_dir: Path) -> Path:
    """The compiled library under ``cache_dir`` (built on first use, atomically)."""
    if not sys.platform.startswith("linux"):
        raise AlignerNotSeedable(f"seeding eflomal needs Linux (this is {sys.platform})")
    target = cache_dir / "eflomal-seed" / f"seed-{VERSION}.so"
    if target.is_file():
        return target
    cc = compiler()
    if cc is None:
        raise AlignerNotSeedable("seeding eflomal needs a C compiler (cc, gcc or clang; or $CC)")
    target.parent.mkdir(parents=True, exist_ok=True)
    source = target.with_suffix(".c")
    with atomic_path(source) as tmp:
        tmp.write_text(_SOURCE)
    with atomic_path(target) as tmp:
        done = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-x", "c", str(source), "-o", str(tmp),
                               "-ldl"], capture_output=True, text=True)
        if done.returncode != 0:
            raise AlignerNotSeedable(f"compiling the eflomal seed library failed: "
                                     f"{done.stderr.strip().splitlines()[-1:] or done.returncode}")
    return target


def seeded_environment(seed: int, cache_dir: Path, proof: Path | None = None) -> dict[str, str]:
    """Environment variables under which the eflomal binary samples from ``seed``; with
    ``proof``, the library appends a line there for each read it answered."""
    if not 0 <= seed < 2 ** 63:
        raise ValueError(f"alignment seed {seed} is not in [0, 2^63)")
    library = preload_library(cache_dir)
    preload = " ".join(p for p in (str(library), os.environ.get("LD_PRELOAD", "")) if p)
    env = {"LD_PRELOAD": preload, SEED_VARIABLE: str(seed), "OMP_NUM_THREADS": "2,1",
           "OMP_DYNAMIC": "false"}
    if proof is not None:
        env[PROOF_VARIABLE] = str(proof)
    return env


def check_seeded(proof: Path, directions: int = 2) -> None:
    """Raise unless the library answered eflomal's seed read in every direction: it was not
    preloaded (a cache folder mounted noexec, a loader that ignores LD_PRELOAD) or eflomal
    no longer seeds from /dev/urandom — the links would then not be the seed's."""
    seen = proof.read_text().count("seeded") if proof.is_file() else 0
    if seen < directions:
        raise AlignerNotSeedable(f"eflomal's sampler was not seeded ({seen} of {directions} "
                                 "seed reads answered: the seed library was not loaded, e.g. "
                                 "a cache folder mounted noexec, or this eflomal reads its "
                                 "seed another way)")
