"""docs: every template placeholder is filled (and every value used); the generated pages carry the
counts of the tables they describe."""

import os
import re
import sys
import tempfile
import unittest
from string import Template

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _support import merged_fixture_tree  # noqa: E402

from dataset_build import docs, pipeline, schema  # noqa: E402

LEFTOVER = re.compile(r"\$(\{?[A-Za-z_])")  # an unfilled $name / ${name}


def placeholders(template_text):
    names = set()
    for m in Template.pattern.finditer(template_text):
        if m.group("invalid") is not None:
            raise AssertionError("stray '$' at offset %d" % m.start())
        names.add(m.group("named") or m.group("braced"))
    names.discard(None)  # "$$" escapes
    return names


class Docs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="ptp_ds_")
        shared = merged_fixture_tree(os.path.join(cls.tmp.name, "shared"))
        cls.out = os.path.join(cls.tmp.name, "datasets")
        pipeline.main(["--shared", shared, "--out", cls.out, "--quiet"])
        runs, colls, ops, stats, _ = pipeline.build(shared)
        stats["raw_copied"], stats["raw_total"] = [("shared", "README.md", 1)], 1
        cls.readme_values = docs.readme_values(runs, colls, ops, stats)
        cls.source_values = docs.source_doc_values(stats, runs, colls, ops)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def read(self, rel):
        with open(os.path.join(self.out, rel), encoding="utf-8") as f:
            return f.read()

    def test_template_placeholders_match_values(self):
        text = docs.load_template("README.md").template
        self.assertEqual(placeholders(text), set(self.readme_values))
        for name in docs.SOURCE_DOCS:
            text = docs.load_template("sources/%s.md" % name).template
            self.assertEqual(placeholders(text), set(self.source_values[name]), name)

    def test_no_placeholder_left_in_generated_pages(self):
        pages = ["README.md"] + ["sources/%s.md" % n for n in docs.SOURCE_DOCS]
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "sources"))),
                         sorted("%s.md" % n for n in docs.SOURCE_DOCS))
        for rel in pages:
            self.assertIsNone(LEFTOVER.search(self.read(rel)), rel)

    def test_missing_value_is_an_error(self):
        values = dict(self.source_values["dle"])
        del values["nout"]
        with self.assertRaises(KeyError):
            docs.render("sources/dle.md", values)

    def test_counts_filled_in(self):
        readme = self.read("README.md")
        self.assertTrue(readme.startswith("# ptp datasets (schema %s)\n" % schema.SCHEMA_VERSION))
        self.assertIn("\n    %s\n" % schema.REGEN_CMD, readme)
        self.assertIn("| `runs.csv` | 23 |", readme)  # 8 dle + 9 lambda + 6 llm
        self.assertIn("| `collectives.csv` | 18 |", readme)  # 12 nccl-tests + 6 vidur
        self.assertIn("| `ops/*.csv` | 49 |", readme)  # 9 neusight + 29 vidur + 6 xla + 3 deepgemm + 2 tilelang
        self.assertIn("exact duplicates (dropped: runs: 0, collectives: 1, ops: 0)", readme)
        self.assertIn("Rows with a step time: dle 6 of 8, lambda 6 of 9, llm 5 of 6.", readme)
        self.assertIn("(8 rows) -> `runs.csv` (8 rows, source `dle`)", self.read("sources/dle.md"))
        kernels = self.read("sources/kernels.md")
        self.assertIn("* **Rows:** 11 in `ops/` (9 with status `ok`, 2 `skipped`).", kernels)
        self.assertIn("| xla | h100-sxm5-80gb | fp8 | skipped | 1 |", kernels)
        self.assertIn("## Not used: `mamf_ml_engineering.csv` (2 rows)", kernels)
        self.assertIn(" 1 rows carry it (seq_len stays 512", self.read("sources/dle.md"))
        self.assertIn("Counts: disabled 1, enabled 3.", self.read("sources/lambda.md"))
        self.assertIn("Exact duplicate rows in the tidy file: 1 dropped.", self.read("sources/vidur.md"))
        self.assertIn("| gpu | rows |\n|---|---|\n| v100-pcie-32gb | 5 |\n| l4 | 3 |\n| h100-sxm5-80gb | 1 |\n",
                      self.read("sources/neusight.md"))

    def test_every_column_documented(self):
        text = docs.load_template("README.md").template
        for cols in (schema.RUNS_COLUMNS, schema.COLL_COLUMNS, schema.OPS_COLUMNS):
            for c in cols:
                self.assertIn("\n| %s | " % c, text, c)


if __name__ == "__main__":
    unittest.main()
