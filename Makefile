# Thin wrappers over one go command each. `make test` is what CI runs.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -s -w -X main.version=$(VERSION)
FUZZTIME ?= 20s

.PHONY: build test golden fuzz bench clean install dist

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o mcp .

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

golden:
	$(GO) test -count=1 -run 'TestGolden' -update ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzJSON$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzNumber$$' -fuzztime $(FUZZTIME) .

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 .

clean:
	rm -rf mcp dist

install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' .

dist:
	rm -rf dist && mkdir -p dist
	for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do \
		os=$${target%/*}; arch=$${target#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' \
			-o dist/mcp-$(VERSION)-$$os-$$arch$$ext . || exit 1; \
	done
	cd dist && sha256sum mcp-* > SHA256SUMS
