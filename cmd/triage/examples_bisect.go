package main

// The bisect tool's examples (see examples).
func init() {
	examples["bisect"] = [2]string{
		`--project_dir . --good v1.2.0 --run TestParse`,
		`--project_dir . --good HEAD~20 --program ./build/server --args=--selftest --build_command '["make"]'`,
	}
}
