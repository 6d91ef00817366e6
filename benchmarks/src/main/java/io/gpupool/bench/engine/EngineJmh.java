package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.JobSpec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH form of the engine benchmark: one operation = one submission placed in a 4,096 x 8 GPU pool
 * held 60-90 % full (with the releases that keep it there). Run with
 * {@code java -cp <classpath> io.gpupool.bench.engine.EngineJmh}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class EngineJmh {
    private EngineBench.Driver single;
    private EngineBench.Driver gang;

    @Setup(Level.Trial)
    public void setUp() {
        final EngineBenchOptions o = EngineBenchOptions.defaults();
        single = new EngineBench.Driver(o, JobSpec.builder("x").gang(1, 1).build(), 1);
        single.fillTo(0.75);
        gang = new EngineBench.Driver(o, JobSpec.builder("x").gang(8, 8).build(), 64);
        gang.fillTo(0.75);
    }

    @Benchmark
    public int singleGpuPlacement() {
        return single.steady(1);
    }

    @Benchmark
    public int gang8x8Placement() {
        return gang.steady(1);
    }

    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(EngineJmh.class.getSimpleName()).build()).run();
    }
}
