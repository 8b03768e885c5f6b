# forma serve in a container: the static binary on a distroless base, run as a non-root user, with models
# mounted read-only at /models. See docs/deploy.md.
#
#   docker build -t forma .
#   docker run --rm -p 8080:8080 -v "$PWD/models:/models:ro" forma -m /models/MODEL.gguf

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# novulkan leaves out the Vulkan backend, whose loader would make the binary ask for a dynamic linker.
RUN CGO_ENABLED=0 go build -tags novulkan -trimpath -ldflags="-s -w" -o /out/forma ./cmd/forma

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/forma /usr/local/bin/forma
# Names given to -m (or in requests) are looked up here as NAME.gguf.
ENV FORMA_MODELS=/models
VOLUME /models
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/forma", "serve", "--host", "0.0.0.0", "--port", "8080"]
