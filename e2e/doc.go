// Package e2e holds end-to-end tests of the built triage binary driven by
// independent real clients: the MCP Inspector CLI over stdio and streamable
// HTTP, and raw JSON-RPC over a pipe.
//
// The binary is built once per test run (TestMain). The Inspector is found at
// $TRIAGE_INSPECTOR or in the cache scripts/install-deps.sh fills; when CI is
// set a missing tool fails the test instead of skipping it.
package e2e
