// Package report renders benchmark scores as a self-contained HTML page
// with PNG figures beside it, and a summary.json with the same figures for
// machines: complete@k curves per method, strata bars (state type and group
// count), and paired differences against a baseline with their intervals.
//
// Same input, same files: methods and strata are drawn in sorted order and
// no timestamp is written.
package report
