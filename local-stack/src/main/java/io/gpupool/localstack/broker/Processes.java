package io.gpupool.localstack.broker;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Stopping a process politely first. */
public final class Processes {

    private Processes() {
    }

    /**
     * Sends SIGTERM and waits; kills it when it is still alive after the timeout.
     *
     * @return true when it stopped on its own, false when it had to be killed
     */
    public static boolean stop(final ProcessHandle process, final Duration timeout) {
        if (!process.isAlive()) {
            return true;
        }
        process.destroy();
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // still alive: fall through to the kill
        }
        process.destroyForcibly();
        try {
            process.onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // nothing more we can do
        }
        return false;
    }
}
