package main

import "github.com/cyclebench/cyclebench/internal/tab"

// The command's names for the table model of package tab.
type (
	table = tab.Table
	col   = tab.Col
	shown = tab.Shown
	doc   = tab.Doc
)

// newDoc returns a document for format: markdown for formatMD, text
// otherwise.
func newDoc(format string) *doc { return tab.NewDoc(format == formatMD) }

// kvTable and kvLines build key/value tables ([tab.NewKV], [tab.KVLines]).
var kvTable, kvLines = tab.NewKV, tab.KVLines
