package io.gpupool.cli.workload;

import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits jobs at their arrival times, {@code timeScale} times faster than workload time, on its
 * own thread. A job counts as submitted only once the broker acknowledged it; a failed send is
 * counted apart and never fatal: the pipeline keeps running. The first failure is logged at WARN,
 * the rest at DEBUG (a broker that is gone would otherwise log one line per job).
 */
public final class WorkloadRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WorkloadRunner.class);

    private final Iterator<TimedJob> jobs;
    private final double timeScale;
    private final JobCommandProducer producer;
    private final String requestedBy;
    private final Thread thread;
    /** Sends the broker acknowledged. */
    private final AtomicLong submitted = new AtomicLong();
    /** Sends that failed: refused at once, or not acknowledged. */
    private final AtomicLong sendFailed = new AtomicLong();
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
                try {
                    producer.send(JobCommands.submit(job.jobId(), job.request(), requestedBy), (metadata, error) -> {
                        if (error == null) {
                            submitted.incrementAndGet();
                        } else {
                            sendFailed(job, error);
                        }
                    });
                } catch (RuntimeException refused) { // e.g. serialization: the callback is not called
                    sendFailed(job, refused);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("workload stopped submitting: {}", e.toString());
        } finally {
            finished = true;
        }
    }

    /** Called on the producer's thread for a failed acknowledgement, on ours for a send refused at once. */
    private void sendFailed(final TimedJob job, final Exception error) {
        if (sendFailed.incrementAndGet() == 1) {
            LOG.warn("could not submit {}: {} (further failures are counted in jobs_send_failed)", job.jobId(),
                    error.toString());
        } else {
            LOG.debug("could not submit {}: {}", job.jobId(), error.toString());
        }
    }

    /** Sends the broker did not take (counted, logged, not retried: the next job goes on). */
    public long sendFailed() {
        return sendFailed.get();
    }

    /** Jobs the broker acknowledged; sends still in flight count in neither figure. */
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
