package fakeaxe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// node is one element of the instantiated tree; nil strings are JSON null.
type node struct {
	typ, role, roleDesc string
	label, id, value    *string
	x, y, w, h          float64
	children            []node
}

func s(v string) *string { return &v }

// group is an anonymous container (SwiftUI's nesting): no label, id or value.
func group(x, y, w, h float64, children ...node) node {
	return node{typ: "Group", role: "AXGroup", roleDesc: "group", x: x, y: y, w: w, h: h, children: children}
}

func text(label, id string, value *string, x, y, w, h float64) node {
	return node{typ: "StaticText", role: "AXStaticText", roleDesc: "text", label: s(label), id: s(id), value: value, x: x, y: y, w: w, h: h}
}

// tapTest is AxePlayground's "tap-test" screen, instantiated from the
// recorded schema: the depth of every element and which of AXLabel,
// AXUniqueId and AXValue are strings or null at each depth are the
// recording's; the strings are TapTestView.swift's (its navigation title,
// texts, identifiers and the tap count's value before any tap); frames lie
// on a 402x874-point screen.
func tapTest() node {
	leaves := []node{ // depth 11: labels null or string, ids always, values null or string
		text("Detects taps sent by CLI commands", "tap-test-description", nil, 90, 150, 222, 18),
		text("Tap Count: 0", "tap-count", s("0"), 143, 174, 116, 22),
		{typ: "Other", role: "AXGroup", roleDesc: "group", id: s("tap-test-area"), x: 0, y: 116, w: 402, h: 724},
	}
	// depths 8 to 10: anonymous; 11: the texts and the tap area
	inner := group(16, 116, 370, 100, group(16, 116, 370, 100, group(32, 132, 338, 68, leaves...)))
	heading := text("Tap Test", "tap-test-title", nil, 164, 72, 74, 22) // depth 8
	// depth 7: the screen's identifier, no label
	screen := node{typ: "Other", role: "AXGroup", roleDesc: "group", id: s("tap-test-screen"), x: 0, y: 116, w: 402, h: 724}
	// depth 6 holds depth 7: a group of the heading and texts, and the screen
	d7 := group(0, 0, 402, 874, group(0, 0, 402, 874, inner, heading), screen)
	spine := d7
	for range 5 { // depths 1 to 5
		spine = group(0, 0, 402, 874, spine)
	}
	return node{typ: "Application", role: "AXApplication", roleDesc: "application", label: s("AxePlayground"), x: 0, y: 0, w: 402, h: 874, children: []node{spine}}
}

func (n node) doc() map[string]any {
	kids := []any{}
	for _, c := range n.children {
		kids = append(kids, c.doc())
	}
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	f := strconv.FormatFloat
	return map[string]any{
		"AXFrame": fmt.Sprintf("{{%s, %s}, {%s, %s}}", f(n.x, 'f', -1, 64), f(n.y, 'f', -1, 64), f(n.w, 'f', -1, 64), f(n.h, 'f', -1, 64)),
		"AXLabel": str(n.label), "AXUniqueId": str(n.id), "AXValue": str(n.value),
		"children": kids, "content_required": false, "custom_actions": []any{}, "enabled": true,
		"frame": map[string]any{"x": n.x, "y": n.y, "width": n.w, "height": n.h},
		"help":  nil, "pid": 41872, "role": n.role, "role_description": n.roleDesc,
		"subrole": nil, "title": nil, "traits": []any{}, "type": n.typ,
	}
}

// DescribeUI is the fake's describe-ui answer: the tap-test screen as
// pretty-printed JSON, keys sorted, as AXe prints it.
func DescribeUI() []byte { return Screen(1) }

// Screen is the tap-test screen with its content (what the application
// holds) repeated n times: a busy screen of the same recorded shape, for
// the bounds of an answer.
func Screen(n int) []byte {
	app := tapTest()
	app.children = slices.Repeat(app.children, n)
	raw, err := json.MarshalIndent([]any{app.doc()}, "", "  ")
	if err != nil {
		panic(err)
	}
	return raw
}

// PathType is one entry of a schema: a normalized JSON path ("$.[].AXLabel")
// and a type (array, object, string, number, boolean, null).
type PathType struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// Schema returns the set of paths and types of a JSON document, normalized
// as AXe's recording is: "$" the root, ".[]" an array's element, ".key" an
// object's member.
func Schema(doc []byte) (map[PathType]bool, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	out := map[PathType]bool{}
	schema(v, "$", out)
	return out, nil
}

func schema(v any, path string, out map[PathType]bool) {
	switch x := v.(type) {
	case []any:
		out[PathType{path, "array"}] = true
		for _, e := range x {
			schema(e, path+".[]", out)
		}
	case map[string]any:
		out[PathType{path, "object"}] = true
		for k, e := range x {
			schema(e, path+"."+k, out)
		}
	case string:
		out[PathType{path, "string"}] = true
	case float64:
		out[PathType{path, "number"}] = true
	case bool:
		out[PathType{path, "boolean"}] = true
	case nil:
		out[PathType{path, "null"}] = true
	}
}
