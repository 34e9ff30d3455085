"""The log formats of the systems an inference fleet runs on (Hadoop's HDFS, Android's logcat,
OpenStack, Chromium's log prefix, Windows' servicing log, HPC node events, sshd, dpkg and
systemd), in lines written after their shapes. Run through the redactor, the first version
of these shapes showed timestamps read as phone numbers (a date and a time, seconds and a
process id), HDFS block ids as card numbers, object prints and package names as secrets,
systemd unit instances as e-mail addresses, and networks and versions as addresses."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize("text", [
    # HDFS: the line starts with a date (YYMMDD) and a time (HHMMSS); block ids glue a number
    "081110 092544 35 INFO dfs.DataNode$PacketResponder: PacketResponder 2 for block "
    "blk_6190913725460124637 terminating",
    "081111 054212 19 INFO dfs.DataBlockScanner: Verification succeeded for "
    "blk_-3514207815237183212",
    "081109 213845 2561 INFO dfs.DataNode$DataXceiver: Receiving block blk_4292382298896622412 "
    "src: /10.250.14.38:50217 dest: /10.250.14.38:50010",
    # Android's logcat: the seconds' fraction, then the process and thread ids
    "05-21 09:14:02.118  1820  1933 I ActivityManager: Start proc 31544:com.android.vending/u0a52",
    "05-21 09:14:03.007 31544 31544 D AudioManager: playSoundEffect effectType=0",
    "05-21 09:14:05.441  1820  2977 W ActivityManager: Bad activity token: "
    "android.os.BinderProxy@7c1f04a",
    "05-21 09:14:06.905  1820  1944 V WindowManager: Skipping AppWindowToken{4e6a1b2 "
    "token=Token{91c0d7e ActivityRecord{5a2e3f1 u0 com.example.mail/.Inbox t312}}}",
    "05-21 09:14:07.230  2391  2391 I PhoneStatusBar: addNotification "
    "key=0|com.whatsapp|1|null|10127",
    # OpenStack's services: a Python log's seconds and the process id
    "nova-compute.log 2017-05-16 00:01:07.518 2931 INFO nova.compute.manager "
    "[req-3b6e2f39-5b0e-4a2b-9f4c-0c1f0c2d7a11 - - - - -] [instance: "
    "b9000564-fe1a-409b-b8cc-1e88b294cd1d] VM Resumed (Lifecycle Event)",
    # Chromium's prefix: month and day, then the time
    "Jul  3 08:12:44 build-mac Dropbox[1187]: [0703/081244:WARNING:dns_config_service_posix.cc"
    "(306)] Failed to read DnsConfig.",
    # Windows' servicing log: a package's four-part version; an HPC node's network
    "2016-09-28 04:30:31, Info  CBS  Read out cached package applicability for package: "
    "Package_for_KB2919355~31bf3856ad364e35~amd64~~6.3.1.14, ApplicableState: 80",
    "2016-09-28 04:30:31, Info  CBS  Package: Package_for_KB976902~31bf3856ad364e35~x86~~6.1.1.0",
    "node-117 detected a failed network connection on network 5.5.231.0 via interface alt0",
    # dpkg and apt: a library named for secrets, with its architecture
    "Selecting previously unselected package libsecret-common:amd64.",
    "Unpacking gir1.2-secret-1:arm64 (0.20.5-3) ...",
    # systemd: a template unit's instance
    "Created symlink /etc/systemd/system/getty.target.wants/getty@tty1.service",
    "Started user@1000.service - User Manager for UID 1000.",
    "serial-getty@ttyS0.service: Deactivated successfully.",
    # macOS: a reverse-DNS name after "token:"
    "Could not get event name for stream/token: com.apple.xpc.activity/1187: 132: Request",
])
def test_the_log_line_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    # the same surroundings still give up what they hold
    ("Jul 10 06:55:46 bastion sshd[24200]: Failed password for root from 173.234.31.186 port "
     "38926 ssh2", "173.234.31.186"),
    ("081110 092544 35 INFO dfs.DataNode: contact ops at 0161 496 0732 for blk_6190913725460124",
     "0161 496 0732"),
    ("05-21 09:14:02.118  1820  1933 I SmsService: sending code to 0044 20 7946 0958",
     "0044 20 7946 0958"),
    ("2017-05-16 00:01:07.518 2931 INFO billing: charge card_4111111111111111 declined",
     "4111111111111111"),
    ("[0703/081244:WARNING:auth.cc(88)] token: Qx7fT2mL9pZr4Kc8Wn3Ys6Vb",
     "Qx7fT2mL9pZr4Kc8Wn3Ys6Vb"),
    ("Started session for alice.morgan@example.org on tty1", "alice.morgan@example.org"),
    ("node-117 reached gateway 5.5.231.17 via interface alt0", "5.5.231.17"),
])
def test_the_value_in_a_log_line_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})
