package io.gpupool.cli.workload;

import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits jobs at their arrival times, {@code timeScale} times faster than workload time, on its
 * own thread. A failed send is counted and logged, never fatal: the pipeline keeps running.
 */
public final class WorkloadRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WorkloadRunner.class);

    private final Iterator<TimedJob> jobs;
    private final double timeScale;
    private final JobCommandProducer producer;
    private final String requestedBy;
    private final Thread thread;
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean stopping;
    private volatile boolean finished;

    public WorkloadRunner(final Iterator<TimedJob> jobs, final double timeScale, final JobCommandProducer producer,
            final String requestedBy) {
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("the time scale must be > 0, got " + timeScale);
        }
        this.jobs = jobs;
        this.timeScale = timeScale;
        this.producer = producer;
        this.requestedBy = requestedBy;
        this.thread = new Thread(this::run, "gpupool-workload");
        this.thread.setDaemon(true);
    }

    public WorkloadRunner start() {
        thread.start();
        return this;
    }

    private void run() {
        final long began = System.nanoTime();
        try {
            while (!stopping && jobs.hasNext()) {
                final TimedJob job = jobs.next();
                final long dueNanos = began + Math.round(job.arrivalMillis() * 1_000_000.0 / timeScale);
                long wait;
                while (!stopping && (wait = dueNanos - System.nanoTime()) > 0) {
                    Thread.sleep(Math.max(1, Math.min(wait / 1_000_000, 200)));
                }
                if (stopping) {
                    break;
                }
                producer.send(JobCommands.submit(job.jobId(), job.request(), requestedBy), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                        LOG.warn("could not submit {}: {}", job.jobId(), error.toString());
                    }
                });
                submitted.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failed.incrementAndGet();
            LOG.warn("workload stopped submitting: {}", e.toString());
        } finally {
            finished = true;
        }
    }

    /** Submits the broker did not take (counted, logged, not retried: the next job goes on). */
    public long failed() {
        return failed.get();
    }

    public long submitted() {
        return submitted.get();
    }

    /** True when every job of a finite workload (a trace) has been submitted, or it stopped. */
    public boolean finished() {
        return finished;
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join(5_000);
        producer.flush();
    }
}
