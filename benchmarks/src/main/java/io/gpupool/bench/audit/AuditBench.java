package io.gpupool.bench.audit;

import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.audit.AuditResult;
import io.gpupool.scheduler.audit.Auditor;
import io.gpupool.scheduler.audit.RecordedCommands;
import io.gpupool.scheduler.audit.RecordedDecisions;
import io.gpupool.scheduler.audit.SyntheticHistory;

import io.gpupool.scheduler.core.EngineConfig;
import java.io.PrintWriter;
import java.util.Map;

/**
 * The offline audit throughput: records a synthetic history of N journal entries (not timed), then
 * audits it (timed) and prints the audit's name=value line. Run:
 * {@code gpupool bench audit --entries 1000000} or this class's main with the entry count.
 */
public final class AuditBench {
    private AuditBench() {
    }

    public static AuditResult run(final int entries, final int nodes, final long seed, final PrintWriter out) {
        final EngineConfig config = EngineConfig.fromSettings(Map.of("pool", "bench"));
        final SyntheticHistory.Recording rec = SyntheticHistory.record("bench", nodes, entries, seed, config);
        out.printf("recorded entries=%d decisions=%d node_commands=%d nodes=%d%n", rec.journal().size(),
                rec.decisions().size(), rec.commands().size(), nodes);
        // one warm-up pass so that the figure is the JIT-compiled engine, as in a long audit
        new Auditor(p -> config, Map.of(), AuditRange.ALL).run(rec.journal().subList(0, Math.min(entries, 200_000))
                .iterator(), RecordedDecisions.of(rec.decisions()), RecordedCommands.of(rec.commands()));
        final AuditResult r = new Auditor(p -> config, Map.of(), AuditRange.ALL).run(rec.journal().iterator(),
                RecordedDecisions.of(rec.decisions()), RecordedCommands.of(rec.commands()));
        r.print(out);
        return r;
    }

    public static void main(final String[] args) {
        final int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        final int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        final PrintWriter out = new PrintWriter(System.out, true);
        final AuditResult r = run(entries, nodes, 42, out);
        System.exit(r.passed() ? 0 : 1);
    }
}
