package io.gpupool.cli.up;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The services {@code gpupool up} runs after the scheduler, as the flags ask: fleet, sink, workload, progress. */
public final class PipelineServices {

    private PipelineServices() {
    }

    public static List<UpService> of(final PipelineOptions options, final PrintWriter err) {
        return of(options, new PipelineParts(), err);
    }

    /** With the caller's parts, to reach the fleet (fault injection) and the sink while they run. */
    public static List<UpService> of(final PipelineOptions options, final PipelineParts parts, final PrintWriter err) {
        final List<UpService> services = new ArrayList<>();
        if (!options.noFleet) {
            services.add(new FleetService(options, parts));
        }
        if (!options.noSink) {
            services.add(new SinkService(options, parts));
        }
        if (!options.noGenerator) {
            services.add(new WorkloadService(options, parts));
        }
        services.add(new ProgressService(options, parts, err));
        return services;
    }
}
