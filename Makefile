# Common tasks. `make test` is what CI runs (scripts/test.sh).
GO ?= go

.PHONY: build test demo docs golden lint bench bench-quick deps fuzz soak corpus verdicts

build:
	$(GO) build -o bin/triage ./cmd/triage

deps:
	scripts/install-deps.sh

test:
	scripts/test.sh

demo:
	scripts/demo.sh

docs: build
	./bin/triage tools --markdown --all > docs/TOOLS.md

# golden rewrites the golden transcripts (internal/server/testdata/golden)
# from a real session; only that package has the -update flag, so
# `go test ./... -update` cannot do it.
golden:
	$(GO) test -count=1 ./internal/server -run Golden -update

lint:
	gofmt -l $$(git ls-files '*.go')
	$(GO) vet ./...
	staticcheck ./...

# bench runs the whole suite, five runs each, and rewrites the generated part
# of docs/PERFORMANCE.md; bench-quick runs a reduced set into bin/ and fails
# when a figure is worse than twice its target.
bench:
	$(GO) run ./cmd/benchreport

bench-quick:
	$(GO) run ./cmd/benchreport -quick

fuzz:
	scripts/fuzz.sh

soak:
	scripts/soak.sh

corpus:
	scripts/corpus.sh

# verdicts runs the whole real-world fault matrix (e2e/realworld) and
# rewrites docs/VERDICTS.md; `go test` runs only the cells marked CI.
verdicts: corpus
	TRIAGE_VERDICTS=all TRIAGE_VERDICTS_MD=$(CURDIR)/docs/VERDICTS.md \
		$(GO) test -count=1 -timeout 60m -run 'TestVerdicts' -v ./e2e/realworld
