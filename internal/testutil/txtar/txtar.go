// Package txtar reads and writes txtar archives, the format of the golden
// transcripts: a free-form comment, then files, each introduced by a marker
// line "-- NAME --" and running to the next marker. It is a few dozen lines,
// so tests need no module for it. Import it from _test files only.
package txtar

import (
	"bytes"
	"strings"
)

// Archive is a comment followed by named files, in order.
type Archive struct {
	Comment string
	Files   []File
}

// File is one section of an archive.
type File struct {
	Name string
	Data string
}

// Parse reads an archive. A line is a marker when it starts with "-- ",
// ends with " --" and names something between them; everything before the
// first marker is the comment.
func Parse(data []byte) *Archive {
	a := &Archive{}
	cur := &a.Comment
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if name, ok := marker(string(line)); ok {
			a.Files = append(a.Files, File{Name: name})
			cur = &a.Files[len(a.Files)-1].Data
			continue
		}
		*cur += string(line) + "\n"
	}
	return a
}

func marker(line string) (string, bool) {
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 7 {
		return "", false
	}
	name := strings.TrimSpace(line[3 : len(line)-3])
	return name, name != ""
}

// Format writes an archive; a comment or file that does not end with a
// newline gets one, so Parse(Format(a)) gives a back.
func Format(a *Archive) []byte {
	var b bytes.Buffer
	b.WriteString(withNewline(a.Comment))
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(withNewline(f.Data))
	}
	return b.Bytes()
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// Get returns the data of the first file named name.
func (a *Archive) Get(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}
