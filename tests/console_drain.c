// SPDX-License-Identifier: GPL-2.0
/*
 * console_drain: wait until the console has sent all that was written to
 * it. The test initramfs's init runs it before reboot -f, which would
 * otherwise drop the serial port's last lines, the results among them.
 */
#include <stdio.h>
#include <termios.h>

int main(void)
{
	if (tcdrain(1)) {
		perror("tcdrain");
		return 1;
	}
	return 0;
}
