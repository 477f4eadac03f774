// SPDX-License-Identifier: GPL-2.0
/*
 * cn_proc_request: requests to the process events connector on
 * NETLINK_CONNECTOR sockets of its own, for tests/clients/run.sh (not part
 * of the series).
 *
 *   cn_proc_request [-j] [-n N] [-u UID] [-w] OP...
 *
 * OP: listen (PROC_CN_MCAST_LISTEN), ignore (PROC_CN_MCAST_IGNORE) or a
 * number (any other op); -j: the socket joins the CN_IDX_PROC group
 * first; -n: N sockets (1 by default), each sending every OP, all open
 * until the program ends; -u: as UID (and its gid); -w: then say "ready"
 * on stdout and keep the sockets open until a signal ends the program.
 * The connector has handled a request when send() returns. Exit status 0,
 * or 1 with a line on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

static void fail(const char *what)
{
	fprintf(stderr, "cn_proc_request: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One request of OP (a name or a number) on socket FD. */
static void request(int fd, const char *name)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(__u32))];
		struct nlmsghdr nlh;
	} req;
	struct cn_msg *cn = NLMSG_DATA(&req.nlh);
	__u32 op = !strcmp(name, "listen") ? PROC_CN_MCAST_LISTEN :
		   !strcmp(name, "ignore") ? PROC_CN_MCAST_IGNORE :
		   strtoul(name, NULL, 0);

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	req.nlh.nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, &req, req.nlh.nlmsg_len, 0) < 0)
		fail(name);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int opt, fd, i, n = 1, wait = 0;

	while ((opt = getopt(argc, argv, "jn:u:w")) != -1) {
		if (opt == 'j')
			sa.nl_groups = CN_IDX_PROC;
		else if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'u' && (setgid(atoi(optarg)) || setuid(atoi(optarg))))
			fail("setuid");
		else if (opt == 'w')
			wait = 1;
		else if (opt != 'u')
			return 1;
	}
	while (n-- > 0) {
		fd = socket(PF_NETLINK, SOCK_DGRAM, NETLINK_CONNECTOR);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			fail("socket");
		for (i = optind; i < argc; i++)
			request(fd, argv[i]);
	}
	if (wait) {
		printf("ready\n");
		fflush(stdout);
		pause();
	}
	return 0;
}
