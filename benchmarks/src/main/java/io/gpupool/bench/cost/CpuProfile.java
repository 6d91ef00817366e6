package io.gpupool.bench.cost;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of this JVM during the measurement, summarised for the scheduler's threads only (those whose
 * name carries its application id: stream threads and their producer, consumer and admin threads). Java samples
 * ({@code jdk.ExecutionSample}) and the native samples of JNI work (RocksDB, LZ4: {@code jdk.NativeMethodSample}
 * whose top frame is theirs; other native samples are threads waiting on sockets) are taken at the same period
 * and counted alike. RocksDB's own background threads (flush, compaction) are not Java threads and are not seen.
 */
final class CpuProfile implements AutoCloseable {
    private static final Duration PERIOD = Duration.ofMillis(10);
    private static final int TOP_FRAMES = 10;
    /** Native methods that are CPU work, not waiting. */
    private static final List<String> NATIVE_WORK = List.of("org.rocksdb.", "net.jpountz.");
    /** Parts of the pipeline, charged inclusively: a sample counts for each of these its stack passes through. */
    private static final Map<String, String> STAGES = stages();

    private final Recording recording;
    private final Path file;

    private CpuProfile(final Recording recording, final Path file) {
        this.recording = recording;
        this.file = file;
    }

    static CpuProfile start(final Path file) {
        final Recording r = new Recording();
        r.enable("jdk.ExecutionSample").withPeriod(PERIOD).withStackTrace();
        r.enable("jdk.NativeMethodSample").withPeriod(PERIOD).withStackTrace();
        r.setToDisk(true);
        r.start();
        return new CpuProfile(r, file);
    }

    /** Stops the recording and returns the figures: samples, shares per category and per stage, the top frames. */
    Map<String, String> stop(final String threadMarker) throws IOException {
        recording.stop();
        recording.dump(file);
        final Map<FrameCategory, Long> byCategory = new EnumMap<>(FrameCategory.class);
        final Map<String, Long> byStage = new LinkedHashMap<>();
        STAGES.keySet().forEach(s -> byStage.put(s, 0L));
        final Map<String, Long> byTopFrame = new TreeMap<>();
        final Map<String, Long> byThread = new TreeMap<>();
        long samples = 0;
        for (final RecordedEvent e : RecordingFile.readAllEvents(file)) {
            final boolean java = e.getEventType().getName().equals("jdk.ExecutionSample");
            final RecordedThread t = e.getThread("sampledThread");
            if (t == null || t.getJavaName() == null || !t.getJavaName().contains(threadMarker)
                    || e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) {
                continue;
            }
            final List<RecordedFrame> frames = e.getStackTrace().getFrames();
            final String top = className(frames.get(0));
            if (!java && NATIVE_WORK.stream().noneMatch(top::startsWith)) {
                continue;
            }
            samples++;
            final List<String> classes = new ArrayList<>(frames.size());
            frames.forEach(f -> classes.add(className(f)));
            byCategory.merge(FrameCategory.of(classes), 1L, Long::sum);
            byThread.merge(threadKind(t.getJavaName()), 1L, Long::sum);
            byTopFrame.merge(top + "." + frames.get(0).getMethod().getName(), 1L, Long::sum);
            for (final Map.Entry<String, String> s : STAGES.entrySet()) {
                if (frames.stream().anyMatch(f -> (className(f) + "." + f.getMethod().getName()).startsWith(s.getValue()))) {
                    byStage.merge(s.getKey(), 1L, Long::sum);
                }
            }
        }
        final long total = samples;
        final Map<String, String> figures = new LinkedHashMap<>();
        figures.put("jfr_samples", Long.toString(total));
        figures.put("jfr_file", file.toString());
        for (final FrameCategory k : FrameCategory.values()) {
            figures.put("cpu_share." + k.label(), share(byCategory.getOrDefault(k, 0L), total));
        }
        byStage.forEach((s, n) -> figures.put("cpu_share_inclusive." + s, share(n, total)));
        byThread.forEach((k, n) -> figures.put("cpu_share_thread." + k, share(n, total)));
        final int[] rank = {0};
        byTopFrame.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(TOP_FRAMES)
                .forEach(f -> figures.put("top_frame." + ++rank[0], share(f.getValue(), total) + "," + f.getKey()));
        return figures;
    }

    /** Stream threads run the processors and commits; producer network threads send and complete batches. */
    private static String threadKind(final String name) {
        if (name.contains("kafka-producer-network-thread")) {
            return "producer_network";
        }
        return name.contains("-StreamThread-") ? "stream" : "other";
    }

    private static String className(final RecordedFrame f) {
        return f.getMethod() == null ? "" : f.getMethod().getType().getName();
    }

    private static String share(final long n, final long of) {
        return String.format(Locale.ROOT, "%.3f", of == 0 ? 0.0 : (double) n / of);
    }

    private static Map<String, String> stages() {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("placer", "io.gpupool.scheduler.stream.PlacerProcessor.process");
        m.put("job_routing", "io.gpupool.scheduler.stream.JobRoutingProcessor.process");
        m.put("job_keyer", "io.gpupool.scheduler.stream.JobKeyer.process");
        m.put("node_facts", "io.gpupool.scheduler.stream.NodeFactsProcessor.process");
        m.put("commit", "org.apache.kafka.streams.processor.internals.StreamThread.maybeCommit");
        m.put("poll", "org.apache.kafka.streams.processor.internals.StreamThread.pollPhase");
        return m;
    }

    @Override
    public void close() {
        recording.close();
    }
}
