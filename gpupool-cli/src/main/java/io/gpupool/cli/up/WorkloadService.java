package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.SyntheticJobs;
import io.gpupool.cli.workload.TimedJob;
import io.gpupool.cli.workload.TraceFiles;
import io.gpupool.cli.workload.WorkloadRunner;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/** The job generator (a seeded synthetic mix at --rate) or the replay of a --trace file, time-scaled. */
public final class WorkloadService implements UpService {

    private final PipelineOptions options;
    private final PipelineParts parts;

    public WorkloadService(final PipelineOptions options, final PipelineParts parts) {
        this.options = options;
        this.parts = parts;
    }

    @Override
    public String name() {
        return options.trace != null ? "trace replay" : "job generator";
    }

    @Override
    public AutoCloseable start(final UpContext context) throws Exception {
        // Ids carry the start time so that a rerun on the same data directory submits new jobs.
        final String runTag = Long.toString(System.currentTimeMillis() / 1000 % 1_000_000_000L, 36);
        final Iterator<TimedJob> jobs;
        final String what;
        if (options.trace != null) {
            final List<TimedJob> trace = TraceFiles.read(options.trace, PipelineParts.POOL, runTag, options.traceLimit,
                    options.traceSkip.toMillis());
            final long spanMillis = trace.isEmpty() ? 0 : trace.get(trace.size() - 1).arrivalMillis();
            jobs = trace.iterator();
            what = String.format(Locale.ROOT, "trace %s: %d GPU jobs over %.1f h of trace time, %.0fx faster (%.1f min)",
                    options.trace, trace.size(), spanMillis / 3.6e6, options.timeScale, spanMillis / options.timeScale / 60_000);
        } else {
            jobs = new SyntheticJobs(options.seed, PipelineParts.POOL, runTag, options.rate);
            what = String.format(Locale.ROOT, "generator: %.1f jobs/s (single GPU, fractional, 8-GPU, gangs; 4 tenants, "
                    + "3 priority classes), seed %d", options.rate, options.seed);
        }
        final Properties client = context.clientProperties(StackPrincipal.SUBMITTER);
        final String topic = TopicCatalog.defaults().withOverrides(context.config()).name(Topic.JOBS);
        final JobCommandProducer producer = new JobCommandProducer(client,
                context.registryUrl().orElseThrow(() -> new IllegalStateException("the generator needs the schema registry")), topic);
        final WorkloadRunner runner = new WorkloadRunner(jobs, traceScale(), producer,
                "gpupool-up").start();
        parts.workload(runner);
        context.out().printf("  jobs       %s%n", what);
        context.out().flush();
        return () -> {
            try {
                runner.close();
            } finally {
                producer.close();
            }
        };
    }

    /** A trace's clock is sped up like the jobs' runtimes; the generator's arrivals are already in wall time. */
    private double traceScale() {
        return options.trace != null ? options.timeScale : 1.0;
    }
}
