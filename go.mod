module mcp

go 1.24
