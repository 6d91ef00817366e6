package io.gpupool.scheduler.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine against a simulated sink whose reports arrive late, twice and out of order, as Kafka
 * and real sinks deliver them: node commands in order per node (one partition per node id), each
 * job event after its own random delay, some twice, plus forged events. A physical model tracks
 * what really runs on every GPU. Properties: no GPU ever really runs more than 1000 milli-GPU, and
 * the engine's belief about a job's placement matches the last event of that placement it received.
 * Before placement identity, a late EVICTED of an earlier placement ended the current one and failed
 * the first property.
 */
class PlacementIdentityPropertiesTest {

    /** A part the sink runs: one placement of one job on one node. */
    private static final class Part {
        final String jobId;
        final String placementId;
        final String nodeId;
        final List<Integer> gpus;
        final int milli;
        boolean running = true;

        Part(final NodeInstruction c) {
            this.jobId = c.jobId();
            this.placementId = c.placementId();
            this.nodeId = c.nodeId();
            this.gpus = c.assignment().gpus();
            this.milli = c.assignment().gpuMilli();
        }
    }

    /** Something due at a time: a command reaching its node, a part's natural end, an event reaching the engine. */
    private record Due(long atMs, long seq, Runnable action) {
    }

    private static final class World {
        final Random rnd;
        final PoolEngine engine;
        final PriorityQueue<Due> due = new PriorityQueue<>((a, b) -> a.atMs != b.atMs ? Long.compare(a.atMs, b.atMs)
                : Long.compare(a.seq, b.seq));
        /** Per node, when its last command arrives: commands of one node are delivered in order. */
        final Map<String, Long> nodeFree = new HashMap<>();
        /** What really runs, per placement and node. */
        final Map<String, Part> parts = new TreeMap<>();
        /** Events of each placement that reached the engine, in arrival order. */
        final Map<String, List<EngineInput.JobEventKind>> delivered = new HashMap<>();
        final Set<String> everPlaced = new HashSet<>();
        long now = 1_000;
        long seq;
        int refusedForged;

        World(final long seed, final PoolEngine engine) {
            this.rnd = new Random(seed);
            this.engine = engine;
        }

        void at(final long t, final Runnable r) {
            due.add(new Due(t, seq++, r));
        }

        void apply(final EngineInput in) {
            final String heldBefore = in instanceof EngineInput.JobReport ev ? engine.placementOf(ev.jobId()) : "";
            final EngineOutput out = engine.apply(in);
            for (final Decision d : out.decisions()) {
                if (d.kind() == DecisionKind.PLACED) {
                    everPlaced.add(d.decisionId());
                }
                if (in instanceof EngineInput.JobReport ev && d.jobId().equals(ev.jobId())
                        && (d.kind() == DecisionKind.RELEASED || d.reason().code() == ReasonCode.EVICTED_BY_NODE)) {
                    // a job event ends a placement only when it is about that very placement
                    assertEquals(heldBefore, ev.placementId(), ev.kind() + " of " + ev.placementId() + " ended "
                            + heldBefore + ": " + d);
                }
            }
            for (final NodeInstruction c : out.commands()) {
                final long arrive = Math.max(nodeFree.getOrDefault(c.nodeId(), now), now) + rnd.nextInt(3_000);
                nodeFree.put(c.nodeId(), arrive);
                at(arrive, () -> command(c));
            }
            checkPhysics();
            checkBelief();
        }

        /** The sink applies a command on its node. */
        void command(final NodeInstruction c) {
            final String key = c.placementId() + "@" + c.nodeId();
            switch (c.kind()) {
                case ALLOCATE -> {
                    final Part p = new Part(c);
                    parts.put(key, p);
                    checkPhysics();
                    report(p, EngineInput.JobEventKind.STARTED, rnd.nextInt(2_000));
                    final long runtime = 2_000 + rnd.nextInt(60_000);
                    at(now + runtime, () -> {
                        if (p.running) {
                            p.running = false;
                            final int r = rnd.nextInt(20);
                            // now and then the node side evicts a part on its own (a node drain)
                            report(p, r == 0 ? EngineInput.JobEventKind.EVICTED
                                    : r < 3 ? EngineInput.JobEventKind.FAILED : EngineInput.JobEventKind.COMPLETED, 0);
                        }
                    });
                }
                case EVICT, RELEASE -> {
                    final Part p = parts.get(key);
                    if (p != null && p.running) {
                        p.running = false;
                        report(p, c.kind() == InstructionKind.EVICT ? EngineInput.JobEventKind.EVICTED
                                : EngineInput.JobEventKind.RELEASED, 0);
                    }
                }
                default -> throw new IllegalStateException(c.toString());
            }
        }

        /** A job event on its way to the engine: late by a random delay, and now and then twice. */
        void report(final Part p, final EngineInput.JobEventKind kind, final int afterMs) {
            final int copies = rnd.nextInt(6) == 0 ? 2 : 1;
            for (int i = 0; i < copies; i++) {
                final long arrive = now + afterMs + rnd.nextInt(8_000);
                at(arrive, () -> {
                    delivered.computeIfAbsent(p.placementId, k -> new ArrayList<>()).add(kind);
                    apply(new EngineInput.JobReport(now, p.jobId, kind, p.placementId, p.nodeId, ""));
                });
            }
        }

        /** No GPU really runs more than one whole GPU's worth of parts. */
        void checkPhysics() {
            final Map<String, Integer> milli = new TreeMap<>();
            for (final Part p : parts.values()) {
                if (p.running) {
                    for (final int g : p.gpus) {
                        final int sum = milli.merge(p.nodeId + "/" + g, p.milli, Integer::sum);
                        assertTrue(sum <= 1000, "GPU " + p.nodeId + "/" + g + " really runs " + sum
                                + " milli-GPU at " + now + " (part " + p.jobId + " " + p.placementId + ")");
                    }
                }
            }
        }

        /** A placement the engine still holds has had no terminal event; one it started has had a STARTED. */
        void checkBelief() {
            for (final Map.Entry<String, List<EngineInput.JobEventKind>> e : delivered.entrySet()) {
                final List<EngineInput.JobEventKind> got = e.getValue();
                final EngineInput.JobEventKind last = got.get(got.size() - 1);
                final boolean ended = got.stream().anyMatch(k -> k != EngineInput.JobEventKind.STARTED);
                final String jobId = jobOf(e.getKey());
                if (ended) {
                    assertNotEquals(e.getKey(), engine.placementOf(jobId),
                            "engine still holds placement " + e.getKey() + " after " + last);
                } else if (e.getKey().equals(engine.placementOf(jobId))) {
                    assertEquals(JobState.RUNNING, engine.job(jobId).orElseThrow().state(),
                            "a STARTED of the current placement makes the job RUNNING");
                }
            }
        }

        String jobOf(final String placementId) {
            for (final Part p : parts.values()) {
                if (p.placementId.equals(placementId)) {
                    return p.jobId;
                }
            }
            throw new IllegalStateException(placementId);
        }

        /** A forged or misdirected event (a placement never made, or a node not in it) changes nothing. */
        void forge(final List<String> jobs) {
            if (jobs.isEmpty()) {
                return;
            }
            final String job = jobs.get(rnd.nextInt(jobs.size()));
            final String current = engine.placementOf(job);
            final boolean wrongNode = !current.isEmpty() && rnd.nextBoolean();
            final EngineInput.JobReport forged = new EngineInput.JobReport(now, job, EngineInput.JobEventKind.COMPLETED,
                    wrongNode ? current : "forged-" + rnd.nextInt(1_000), wrongNode ? "no-such-node" : "", "");
            final EngineOutput out = engine.apply(forged);
            assertTrue(out.isEmpty(), "a forged event decided something: " + out);
            assertEquals(current, engine.placementOf(job));
            assertEquals(JobEventNote.Kind.REFUSED, out.eventNote().kind(), out.eventNote().message());
            refusedForged++;
        }
    }

    @Property(tries = 25)
    void lateDuplicatedAndReorderedEventsNeverDoubleBookAGpu(@ForAll final long seed) {
        final World w = new World(seed, Pools.pool(cfg(), 2, 3, 8));
        final List<String> jobs = new ArrayList<>();
        final ArrayDeque<Integer> faults = new ArrayDeque<>();
        for (int step = 0; step < 400; step++) {
            w.now += w.rnd.nextInt(1_500);
            while (!w.due.isEmpty() && w.due.peek().atMs() <= w.now) {
                final Due d = w.due.poll();
                final long keep = w.now;
                w.now = Math.max(keep, d.atMs());
                d.action().run();
                w.now = Math.max(keep, w.now);
            }
            final int op = w.rnd.nextInt(100);
            if (op < 55) {
                final String id = "j" + jobs.size();
                jobs.add(id);
                w.apply(new EngineInput.SubmitJob(w.now, spec(id, w.rnd)));
            } else if (op < 62 && !jobs.isEmpty()) {
                w.apply(new EngineInput.CancelJob(w.now, jobs.get(w.rnd.nextInt(jobs.size())), "test"));
            } else if (op < 68) {
                final String node = "n" + w.rnd.nextInt(2) + "-" + w.rnd.nextInt(3);
                final int gpu = w.rnd.nextInt(8);
                w.apply(new EngineInput.GpuHealthFact(w.now, node, gpu, 79, false, false, false, 50));
                faults.add(gpu);
                w.apply(EngineInput.GpuHealthFact.healthy(w.now + 1, node, gpu));
            } else if (op < 72) {
                w.forge(jobs);
            } else {
                w.apply(new EngineInput.ClockTick(w.now));
            }
        }
        // drain: every report arrives in the end (bounded: a correct engine settles long before)
        for (int left = 100_000; !w.due.isEmpty(); left--) {
            assertTrue(left > 0, "reports keep causing commands that cause reports");
            final Due d = w.due.poll();
            w.now = Math.max(w.now, d.atMs());
            d.action().run();
        }
        assertTrue(w.everPlaced.size() > 20, "the run placed jobs: " + w.everPlaced.size());
    }

    private static JobSpec spec(final String id, final Random r) {
        final JobSpec.Builder b = JobSpec.builder(id).tenant("t" + r.nextInt(3))
                .priorityClass(PriorityClass.values()[r.nextInt(3)]).preemptible(r.nextInt(3) > 0);
        final int kind = r.nextInt(10);
        if (kind < 4) {
            b.gang(1, 1 + r.nextInt(8));
        } else if (kind < 6) {
            b.gang(2, 1 + r.nextInt(8)).topology(GangScope.LEAF, false);
        } else {
            b.share(250 * (1 + r.nextInt(3)), 10_000L);
        }
        return b.build();
    }

    private static EngineConfig cfg() {
        return EngineConfig.fromSettings(Map.of("pool", "p", "stale-telemetry-timeout-ms", "0"));
    }
}
