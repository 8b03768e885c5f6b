package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// apiError is an error with the HTTP status and the names each API's error body needs.
type apiError struct {
	status int
	code   string // OpenAI's code: context_length_exceeded, model_not_found, invalid_value, ...
	param  string // the request field at fault, "" when none
	msg    string
	retry  int // seconds for Retry-After (503), 0 for none
}

func (e *apiError) Error() string { return e.msg }

// badRequest is a 400 naming the field at fault.
func badRequest(param, format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	if param != "" {
		msg = param + ": " + msg
	}
	return &apiError{status: http.StatusBadRequest, code: "invalid_value", param: param, msg: msg}
}

// notSupported is the 400 for a field the server does not honour.
func notSupported(param string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: "not_supported", param: param, msg: param + ": not supported"}
}

func notFound(code, format string, args ...any) *apiError {
	return &apiError{status: http.StatusNotFound, code: code, msg: fmt.Sprintf(format, args...)}
}

var (
	errUnauthorized = &apiError{status: http.StatusUnauthorized, code: "invalid_api_key",
		msg: "missing or invalid API key (send Authorization: Bearer KEY or x-api-key: KEY)"}
	errQueueFull = &apiError{status: http.StatusServiceUnavailable, code: "server_busy", retry: 1,
		msg: "the server is busy: every sequence is in use and the queue is full; retry later"}
	errLoading = &apiError{status: http.StatusServiceUnavailable, code: "loading", retry: 1, msg: "the model is loading"}
	errClosing = &apiError{status: http.StatusServiceUnavailable, code: "shutting_down", retry: 1,
		msg: "the server is shutting down"}
)

// asAPIError turns any error into an apiError: an apiError as it is, a body over the limit a 413, anything else
// a 500.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{status: http.StatusRequestEntityTooLarge, code: "request_too_large",
			msg: fmt.Sprintf("the request body is over the limit of %d bytes", mbe.Limit)}
	}
	return &apiError{status: http.StatusInternalServerError, code: "internal_error", msg: err.Error()}
}

// apiKind selects the shape of error bodies.
type apiKind uint8

const (
	kindOpenAI apiKind = iota
	kindAnthropic
	kindOllama
	kindNative
)

// errorBody returns the JSON error body of an API.
func errorBody(kind apiKind, e *apiError) any {
	switch kind {
	case kindAnthropic:
		return map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(e.status), "message": e.msg}}
	case kindOllama:
		return map[string]any{"error": e.msg}
	}
	body := map[string]any{"message": e.msg, "type": openAIErrorType(e.status), "code": e.code}
	if e.param != "" {
		body["param"] = e.param
	} else {
		body["param"] = nil
	}
	return map[string]any{"error": body}
}

func openAIErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusMethodNotAllowed:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusServiceUnavailable:
		return "unavailable_error"
	}
	return "server_error"
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	return "api_error"
}

// writeError writes an error response in the API's shape.
func writeError(w http.ResponseWriter, r *http.Request, kind apiKind, err error) {
	e := asAPIError(err)
	if info := infoFrom(r.Context()); info != nil {
		info.err = e.msg
	}
	if e.retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retry))
	}
	writeJSON(w, e.status, errorBody(kind, e))
}

// writeJSON writes v as the response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"encoding the response failed","type":"server_error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
