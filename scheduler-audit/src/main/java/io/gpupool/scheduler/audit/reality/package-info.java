/**
 * The reality check of an audit: what the sinks report they ran, from the node commands they were sent
 * and the job events they answered with, independent of the engine.
 *
 * <p>Re-running the engine over the journal proves that every decision follows from its inputs, but a
 * mistaken transition of the engine (a late event of an earlier placement applied to the current one)
 * is replayed just the same, and the invariants the re-run checks hold in its own books while GPUs were
 * really given twice. {@link io.gpupool.scheduler.audit.reality.RealityAudit} therefore rebuilds each
 * part's (placement, node) ALLOCATED and RUNNING time from the sinks' events, ordered by when they
 * happened (they come from many partitions in any interleaving), and reports overallocated GPUs, orphan
 * parts and unapplied commands with their first findings.
 */
package io.gpupool.scheduler.audit.reality;
