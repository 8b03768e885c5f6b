// Package toolcall reads what a chat model writes besides its answer — reasoning and tool calls — in the syntax
// of its chat template's family, and describes the constraint a grammar engine must enforce on those calls.
//
// Detect recognizes the family from the template source (as llama.cpp's common/chat.cpp does): Hermes (Qwen
// 2.5/3, <tool_call>), Llama 3.x (JSON calls, <|python_tag|>), Mistral ([TOOL_CALLS] arrays, or NAME[ARGS]
// since 2025; [THINK] reasoning), Phi-4-mini (functools[…]), Gemma 4 (<|tool_call>call:NAME{…}), gpt-oss
// (Harmony channels) and DeepSeek R1; families without tool syntax may still reason in <think> tags.
//
// A Parser takes the reply in pieces of any size — tags, triggers and JSON may be cut anywhere — and returns
// deltas: reasoning and content text, each call's start (index, id, name) once its name is whole, then
// fragments of its arguments that concatenate to the whole arguments JSON. Result gives the whole Reply.
//
// Tools and ToolChoice hold the OpenAI request fields; BuildConstraint turns them into a GBNF grammar for the
// family's call syntax, with each tool's parameters converted by a SchemaConverter (the grammar package's JSON
// Schema converter), lazy (on at a trigger) for tool_choice "auto" and forced for "required" or a named function.
//
// Nothing here is safe for concurrent use except the package functions; a Parser serves one reply.
package toolcall
