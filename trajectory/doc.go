// Package trajectory turns a coding agent's trajectory into a state card
// (mss.State): what the agent was told (the issue), what it was after (its
// latest information need, hypothesis and subgoal), what it searched for and,
// above all, which source lines it has already seen.
//
// Three trajectory formats are read:
//
//   - serbench: a SERBench item (one JSON object, or JSONL of items) whose
//     trajectory_prefix lists steps with action_type, tool_name,
//     action_input, tool_output, search_results and metadata; or a bare JSON
//     array of such steps.
//   - swe-agent: a SWE-agent .traj file ({"trajectory": [{action,
//     observation, thought, state}], "history": [...]}). File views are
//     read from the line numbers the observation printed (open, goto,
//     scroll_*, str_replace_editor view, cat -n), so the window size of the
//     agent's tools does not have to be guessed.
//   - jsonl: the generic format, one tool call per line (see JSONLStep).
//
// Paths are normalized to repository-relative forward-slash form; absolute
// paths are made relative to the agent's working directory when it is
// known, and Align resolves what remains against the paths of an index.
//
// Lines are "seen" only when their text was shown: a file view or a search
// result that carried the unit's source. A grep hit that printed one line
// records the query, not the unit.
package trajectory
