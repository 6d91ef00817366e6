package io.gpupool.cli.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one table of exit codes every gpupool command returns, so that a script can tell a typo from a
 * refused job from a scheduler that does not answer. {@code gpupool --help} and README.md print it.
 */
public enum ExitCodes {
    OK(0, "done (with --wait: the state waited for was reached)"),
    ERROR(1, "failed unexpectedly (I/O, broker or registry error); GPUPOOL_DEBUG=1 shows the stack trace"),
    REFUSED(2, "refused: the scheduler rejected the job, submit's check found it can never run, or there is nothing "
            + "to cancel (the job has ended)"),
    NOT_FOUND(4, "no such job (or pool, or log)"),
    NO_ANSWER(5, "no answer in time: no decision within --timeout, or the scheduler does not answer"),
    JOB_FAILED(6, "with --wait=finished: the job ended without completing (failed, cancelled or evicted)"),
    CHECK_FAILED(7, "a check found problems: audit divergences or violations, topics that differ, a failed bench check"),
    /** 64: EX_USAGE of sysexits.h, so that a typo is never read as a refused job. */
    USAGE(64, "wrong flags or input; the message says the fix"),
    INTERRUPTED(130, "interrupted (Ctrl-C)");

    private final int code;
    private final String meaning;

    ExitCodes(final int code, final String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    public String meaning() {
        return meaning;
    }

    /**
     * What a failed query to the scheduler's HTTP API means: 400 a value it refuses (a filter the user typed),
     * 404 no such job, no connection or 503 no answer.
     */
    public static ExitCodes forQuery(final int httpStatus) {
        return switch (httpStatus) {
            case 400 -> USAGE;
            case 404 -> NOT_FOUND;
            case -1, 503 -> NO_ANSWER;
            default -> ERROR;
        };
    }

    /** A failure that is the user's to fix, ending the command with this code and the message only. */
    public RuntimeException failure(final String message) {
        return new Failure(this, message);
    }

    /** See {@link #failure}. */
    public static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient ExitCodes code;

        Failure(final ExitCodes code, final String message) {
            super(message);
            this.code = code;
        }

        public ExitCodes code() {
            return code;
        }
    }

    /** The table as picocli's exit code list: code to meaning, in order. */
    public static Map<String, String> helpList() {
        final Map<String, String> list = new LinkedHashMap<>();
        for (final ExitCodes e : values()) {
            list.put(String.format("%3d", e.code), e.meaning);
        }
        return list;
    }
}
