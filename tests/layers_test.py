#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's import graph against the layers the README draws: each
module of scripts/ in one layer, importing only from its own layer or
those below, and no import circle."""

import ast
import glob
import os
import re
import unittest
from typing import Dict, List, Set, Tuple

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYER = re.compile(r'^  (\d)  ([a-z_]+(?: +[a-z_]+)*)$')


def readme_layers(text: str) -> Dict[str, int]:
	"""Each module the README's layer drawing names: its layer."""
	layers: Dict[str, int] = {}
	for line in text.splitlines():
		m = LAYER.match(line)
		if m:
			for name in m.group(2).split():
				if name in layers:
					raise AssertionError(f'README: {name} in two layers')
				layers[name] = int(m.group(1))
	return layers


def imports(path: str, modules: Set[str]) -> Set[str]:
	"""The modules of MODULES that PATH imports, anywhere in it."""
	found = set()
	with open(path) as f:
		tree = ast.parse(f.read())
	for node in ast.walk(tree):
		if isinstance(node, ast.Import):
			found |= {a.name for a in node.names}
		elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
			found.add(node.module)
	return found & modules


def upward(graph: Dict[str, Set[str]], layers: Dict[str, int]) -> List[Tuple[str, str]]:
	"""(module, module it imports) of each import of GRAPH from a layer
	above the importer's."""
	return [(m, d) for m, deps in sorted(graph.items()) for d in sorted(deps)
		if layers[d] > layers[m]]


def circle(graph: Dict[str, Set[str]]) -> List[str]:
	"""The modules of an import circle of GRAPH, [] if it has none."""
	state: Dict[str, int] = {}	# 1 on the path, 2 done
	path: List[str] = []

	def visit(m: str) -> List[str]:
		state[m] = 1
		path.append(m)
		for d in sorted(graph[m]):
			if state.get(d) == 1:
				return path[path.index(d):] + [d]
			if d not in state:
				found = visit(d)
				if found:
					return found
		path.pop()
		state[m] = 2
		return []
	for m in sorted(graph):
		if m not in state:
			found = visit(m)
			if found:
				return found
	return []


class LayersTest(unittest.TestCase):
	def setUp(self) -> None:
		with open(os.path.join(TOP, 'README')) as f:
			self.layers = readme_layers(f.read())
		paths = {os.path.basename(p)[:-3]: p
			 for p in glob.glob(os.path.join(TOP, 'scripts', '*.py'))}
		self.graph = {name: imports(path, set(paths)) for name, path in paths.items()}

	def test_the_readme_draws_every_module_once(self):
		self.assertEqual(sorted(self.layers), sorted(self.graph))

	def test_no_module_imports_one_of_a_layer_above(self):
		self.assertEqual(upward(self.graph, self.layers), [])

	def test_an_import_from_one_layer_up_is_found(self):
		layers = {'a': 1, 'b': 2, 'c': 1, 'd': 0}
		graph = {'a': {'b', 'c', 'd'}, 'b': {'a'}, 'c': set(), 'd': set()}
		self.assertEqual(upward(graph, layers), [('a', 'b')])

	def test_no_import_circle(self):
		self.assertEqual(circle(self.graph), [])

	def test_a_drawing_that_names_a_module_twice_is_refused(self):
		with self.assertRaises(AssertionError):
			readme_layers('  1  a b\n  0  b\n')

	def test_a_circle_is_found(self):
		self.assertEqual(circle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}), ['a', 'b', 'c', 'a'])
		self.assertEqual(circle({'a': {'b'}, 'b': set()}), [])


if __name__ == '__main__':
	unittest.main()
