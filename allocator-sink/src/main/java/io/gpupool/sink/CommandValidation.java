package io.gpupool.sink;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;

/**
 * Checks what Avro cannot: a command that decodes but cannot be applied (unknown type from a newer
 * writer, blank ids) is as bad as undecodable bytes, and goes to the DLQ the same way.
 */
final class CommandValidation {

    private CommandValidation() {
    }

    static void check(final NodeCommand c) {
        if (c == null) {
            throw new InvalidCommandException("tombstone (null value) on the command topic");
        }
        if (c.getType() == null || c.getType() == NodeCommandType.UNKNOWN) {
            throw new InvalidCommandException("command " + c.getCommandId() + " has type UNKNOWN");
        }
        blank("commandId", c.getCommandId());
        blank("decisionId", c.getDecisionId());
        blank("jobId", c.getJobId());
        blank("nodeId", c.getNodeId());
    }

    private static void blank(final String field, final String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidCommandException("command has a blank " + field);
        }
    }

    /** A record that decodes but is no command the sink can apply. */
    static final class InvalidCommandException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidCommandException(final String message) {
            super(message);
        }
    }
}
