/**
 * The placement engine: one pool, single-threaded, deterministic; no Kafka, no clock, no unseeded
 * randomness (guarded by CoreArchitectureTest).
 *
 * <p>Entry points for the stream layer, the simulator, audit and benchmarks:
 * <ul>
 *   <li>{@link io.gpupool.scheduler.core.PoolEngine#PoolEngine(EngineConfig)} and
 *       {@link io.gpupool.scheduler.core.PoolEngine#apply(EngineInput)}: one {@link io.gpupool.scheduler.core.EngineInput}
 *       (node upsert/removal, GPU health, GPU utilisation, heartbeat, link fact, leaf uplink fact, job submit,
 *       job cancel, job event, tick), each stamped with stream time, in; an
 *       {@link io.gpupool.scheduler.core.EngineOutput} (decisions, then node commands, in the order they
 *       happened) out. Decision ids are {@code poolId-sequence}.</li>
 *   <li>{@link io.gpupool.scheduler.core.PoolEngine#snapshot()} /
 *       {@link io.gpupool.scheduler.core.PoolEngine#restore(byte[], EngineConfig)}: the whole state as versioned,
 *       deterministic bytes; restore-then-continue gives exactly the decisions of an uninterrupted run.</li>
 *   <li>Read-only views: {@code capacity()}, {@code fragmentation()}, {@code queueDepth()}, {@code nodes()},
 *       {@code node(id)}, {@code job(id)}, {@code queuedJobs()}, {@code reservation()}.</li>
 *   <li>{@link io.gpupool.scheduler.core.EngineConfig#fromSettings(java.util.Map)}: {@code key=value} settings
 *       (policy, timeouts, tenants, backfill, preemption, consolidation, best-fit-cpu-weight, ...).</li>
 * </ul>
 *
 * <p>For the FGD simulation protocol: build nodes with {@link io.gpupool.scheduler.core.NodeSpec#simple},
 * submit pods with {@code placeNowOrReject(true)} (PLACED or REJECTED at once, never queued), use policy
 * {@code fgd}, and for the paper's BestFit baseline {@code best-fit} with {@code best-fit-cpu-weight=0.5}.
 * Turn off stale telemetry ({@code stale-telemetry-timeout-ms=0}) when the trace has no telemetry.
 */
package io.gpupool.scheduler.core;
