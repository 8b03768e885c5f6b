module github.com/forma-llm/forma

go 1.26
