/**
 * Audit, replay and what-if over the recorded history (journal, decisions, engine snapshots).
 *
 * <p>{@link io.gpupool.scheduler.audit.Auditor} re-runs the engine through the placer's own
 * {@code JournalApplier} and compares every recorded decision and node command with the recomputed one
 * byte for byte (Avro binary, without the registry framing), matching them by the journal entry that
 * caused them and their deterministic decision id (command id and type for node commands; those are
 * compared from where the node-commands topic, which has a retention period, still holds them all:
 * {@link io.gpupool.scheduler.audit.RecordedCommands}); it checks the history's invariants on the way
 * ({@link io.gpupool.scheduler.audit.InvariantChecker}). Those invariants are checked on the engine's
 * own books, so a wrong transition of the engine (a late event of an earlier placement applied to the
 * current one) is replayed and passes; the audit therefore also checks reality, what the sinks report
 * they ran, from the node commands and job events alone ({@link io.gpupool.scheduler.audit.reality},
 * read by {@link io.gpupool.scheduler.audit.KafkaHistory#sinkHistory()}; judged over the times of the
 * entries compared, {@link io.gpupool.scheduler.audit.AuditRange}). {@link io.gpupool.scheduler.audit.WhatIf}
 * re-runs the same inputs under other settings with the sink's job events re-timed from observed run
 * times; {@link io.gpupool.scheduler.audit.PointInTime} answers "why was this job where it was at T";
 * {@link io.gpupool.scheduler.audit.JobCsv} exports one row per job.
 *
 * <p>Engine snapshots: the placer publishes each snapshot it takes (every {@code --snapshot-every}
 * journal entries of a pool, up to four times that for a large snapshot) as an
 * {@link io.gpupool.scheduler.journal.EngineSnapshot} to the compacted topic {@code <journal>.snapshots}
 * ({@link io.gpupool.scheduler.journal.SnapshotTopic}), in the same exactly-once transaction as the decisions
 * of that entry, in chunks of at most 512 KB. A snapshot and the topic's job book records hold all the placer decides from: the engine, and the job
 * book of the journal partition (every job id taken, so a resubmitted id is a duplicate in a replay
 * too; the requests of live jobs, which their node commands carry), one record per job id written when
 * the id is taken ({@link io.gpupool.scheduler.journal.JobBookTopic}). Snapshots of format 2 carry the
 * book inside; those of format 1 (engine only) are still read but never started from. The name follows the journal's instead of
 * being a catalog entry, so renamed or prefixed deployments get a matching topic with no new setting.
 * Keys rotate over 16 slots per pool, so compaction keeps the last 16 snapshots and an audit can
 * verify from any of them onwards. Restarts of the scheduler itself restore from the placer's state
 * stores (engine snapshot + tail, and the job store, all with changelogs).
 */
package io.gpupool.scheduler.audit;
