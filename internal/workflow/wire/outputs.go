package wire

// Page is a page of a stored output's lines, or its coverage.
type Page struct {
	OutputID   string    `json:"output_id" jsonschema:"the output"`
	Offset     int       `json:"offset" jsonschema:"first line returned"`
	Lines      []string  `json:"lines" jsonschema:"the lines"`
	TotalLines int       `json:"total_lines" jsonschema:"lines in the output"`
	Complete   bool      `json:"complete" jsonschema:"the producer finished writing it"`
	Next       string    `json:"next,omitempty" jsonschema:"the call for the following lines"`
	Coverage   *Coverage `json:"coverage,omitempty" jsonschema:"the coverage asked for"`
}

// Search holds the matches of a search of stored outputs.
type Search struct {
	Pattern   string  `json:"pattern" jsonschema:"the pattern"`
	Matches   []Match `json:"matches" jsonschema:"the matches shown, each line once (1-based line numbers)"`
	Total     int     `json:"total" jsonschema:"all matching lines, including those not returned"`
	Truncated bool    `json:"truncated" jsonschema:"more lines matched than were returned"`
	Searched  int     `json:"searched" jsonschema:"outputs searched"`
}

// Outputs lists stored outputs.
type Outputs struct {
	Outputs []Output `json:"outputs" jsonschema:"recent outputs, newest first"`
}
