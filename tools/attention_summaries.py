"""Reference head averages and attention rollout in NumPy float64, for the package's rollout.js.

attention is (L, H, n, n), softmax weights with query rows and key columns. average_heads gives
(L, n, n): each layer's mean over heads. rollout gives (n, n): Abnar & Zuidema 2020, "Quantifying
Attention Flow in Transformers": per layer (mean + I) / 2 with rows renormalised, multiplied from
the first layer up, R = Â_{L-1} ... Â_0.
"""
import numpy as np


def average_heads(attention):
    return np.asarray(attention, dtype=np.float64).mean(axis=1)


def rollout(attention):
    averages = average_heads(attention)
    n = averages.shape[-1]
    rolled = np.eye(n)
    for a in averages:
        mixed = (a + np.eye(n)) / 2
        mixed /= mixed.sum(axis=1, keepdims=True)
        rolled = mixed @ rolled
    return rolled
