"""What the dataset tests (test_cli_dataset.py, test_cli_dataset_points.py) share."""
import os


def tree(root):
    """{relative path: bytes} of every file of a dataset tree but the manifest (whose line order
    depends on which writer finished first)."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if not rel.startswith("manifest"):
                with open(p, "rb") as fp:
                    out[rel] = fp.read()
    return out
