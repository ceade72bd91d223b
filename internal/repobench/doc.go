// Package repobench runs and scores evidence-selection methods on the
// repository track: state cards that name a repository and a base commit,
// certificates of changed-line groups, and predictions that list units by
// path and line range.
//
// The scoring rule is the track's reference scorer (score.py in the
// repotrack data), reimplemented here figure for figure:
//
//   - A unit costs ceil(bytes/4) source tokens, bytes being its lines, each
//     with its newline, of the file at the state's base commit. The file is
//     split on "\n" exactly as Python's bytes.split does, so a file ending in
//     a newline has an empty last line that costs one byte. The range is
//     clamped to [1, len(lines)]; a unit whose path does not exist at the
//     commit, or whose clamped range is empty, costs nothing and covers
//     nothing.
//   - The answer at (k, B) is the longest prefix of at most k units whose
//     summed cost stays within B. Nothing is skipped or backfilled.
//   - A group is covered when an answer unit on the same path (the unit's
//     path with leading '.' and '/' characters stripped, as Python's
//     lstrip("./") does) overlaps one of the group's changed line ranges,
//     compared on the unit's unclamped lines.
//   - complete@k: every required group covered, or every group of one
//     alternative set covered. group_recall@k, necessity@k (weighted by
//     necessity_weight, default 1), tokens@k and observed_units@k (answer
//     units overlapping an observed span on the identical path) follow.
//   - Means are over every state of the states file; a state with no
//     prediction scores zero and is counted as missing. Predictions for
//     states the file does not hold are ignored (and counted).
//
// One deliberate difference: score.py scores a missing mirror or an unknown
// base commit as zero; here both are errors naming the repository, the
// commit and the directories searched, because a silent zero hides a broken
// setup. A path naming a directory (which git show would list) is treated
// as a missing file.
package repobench
