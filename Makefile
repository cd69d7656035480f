# Thin wrappers over go commands. CI runs gofmt -l, then `make test` (go
# vet, then every test) and `make fuzz` (see .ci/run). With -buildvcs=auto
# (whatever GOFLAGS says), Go records the commit of a git checkout in the
# binary, and mcp -version prints it. `make race` runs every test under
# the race detector; CI runs it too.

GO       ?= go
# VERSION is serverVersion in handlers.go; TestVersionAgrees checks that the
# README and the golden files say the same.
VERSION  := $(shell sed -n 's/^[[:space:]]*serverVersion *= *"\(.*\)"$$/\1/p' handlers.go)
ifeq ($(VERSION),)
$(error cannot read serverVersion = "..." from handlers.go: the Makefile reads the version from that line)
endif
# FUZZTIME is a time (20s) or a count of inputs (200000x), which CI uses:
# when a time runs out, go1.26 may report its own deadline as a failure,
# "context deadline exceeded" (it compares the error with a context not
# yet cancelled). make fuzz minimizes nothing: minimizing stalled fuzzing
# for most of a run, and a time could run out during it, with that error.
FUZZTIME ?= 20s
FUZZFLAGS := -fuzztime $(FUZZTIME) -fuzzminimizetime 0

.PHONY: build test race golden fuzz bench clean install dist

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -ldflags '-s -w' -o mcp .

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

race:
	$(GO) test -race -count=1 ./...

golden:
	$(GO) test -count=1 -run 'TestGolden' -update ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' $(FUZZFLAGS) .
	$(GO) test -run '^$$' -fuzz '^FuzzJSON$$' $(FUZZFLAGS) .
	$(GO) test -run '^$$' -fuzz '^FuzzNumber$$' $(FUZZFLAGS) .
	$(GO) test -run '^$$' -fuzz '^FuzzToolText$$' $(FUZZFLAGS) .

bench:
	$(GO) test -run '^$$' -bench . -count 5 .

clean:
	rm -rf mcp dist

install:
	CGO_ENABLED=0 $(GO) install -trimpath -buildvcs=auto -ldflags '-s -w' .

dist:
	rm -rf dist && mkdir -p dist
	for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do \
		os=$${target%/*}; arch=$${target#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=auto -ldflags '-s -w' \
			-o dist/mcp-$(VERSION)-$$os-$$arch$$ext . || exit 1; \
	done
	cd dist && sha256sum mcp-* > SHA256SUMS
