"""The round of corpora CL (hospitality staffing), CM (one person's IT for small
organisations), CN (LLM chat applications' logs), CO (ham radio and makers), CP (French
administration and small business) and CQ (Dutch and Belgian services): each shape they found
left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # staffing: a PASETO token, a right-to-work share code in a log, a session token under
    # another language's key, Spain's social security number, an emergency contact's phone
    ("https://shifts.example.co.uk/auth/magic?t=v2.local.e8SVrJbIq3e8kD-5vySJqw08hHs5Y15l7wXPd"
     "C5pChMnKanWMkZLjebKpKfQi_vfYhur21uFqRq_Jdzwseqqtn", "e8SVrJbIq3e8kD-5vySJqw08hHs5Y15l7wXPd"),
    ("INFO rtw-service check_completed method=online_share_code share_code=RRR LZA NQS result=OK",
     "RRR LZA NQS"),
    ("INFO portal: login ok utilizador=x ip=98.22.192.64 sessão=1ZG5TDPdOhw2zb7J8pXpaQMyeOaF32KZ",
     "1ZG5TDPdOhw2zb7J8pXpaQMyeOaF32KZ"),
    ("Nº de la Seguridad Social: 35/16560640/46", "35/16560640/46"),
    ("Emergency contact: Jack Hussain 07536832268", "07536832268"),
    ("Si ves algún error escríbenos o llama al 952 335 164.", "952 335 164"),
    # one person's IT: handover notes' strong passwords, Wi-Fi keys after their labels, a key
    # in German, a token "für" its use, lower-case TOTP seeds, Dutch recovery codes
    ("- Router (Ziggo Connectbox) beheer: fvh+y@7O@Ixhoh\n- Wifi personeel: "
     "Leuchtturm-Wolke-cerise46", "fvh+y@7O@Ixhoh"),
    ("- Router (Ziggo Connectbox) beheer: fvh+y@7O@Ixhoh\n- Wifi personeel: "
     "Leuchtturm-Wolke-cerise46", "Leuchtturm-Wolke-cerise46"),
    ("Assistant: Here are strong passwords:\n- reception: b*s@v&1z+.%*H=rn\n- finance: "
     "L*Ny2_IzsNX?i++-+", "L*Ny2_IzsNX?i++-+"),
    ("Wi-Fi nauczyciele: MeadowWalnutLanternOtter58\nDziennik", "MeadowWalnutLanternOtter58"),
    ("Schlüssel für Datenübernahme (Schulmanager): 7c2b253af50d41f0f253ec40e6931680206718c1",
     "7c2b253af50d41f0f253ec40e6931680206718c1"),
    ("API-Token für Export: ec85700bb428fdab63bf16fbf932a3511cf8307e",
     "ec85700bb428fdab63bf16fbf932a3511cf8307e"),
    ("TOTP seed (Authenticator): imcv dbzt hvbk fjjz ytq3 czfm lrs6 igtv",
     "imcv dbzt hvbk fjjz ytq3 czfm lrs6 igtv"),
    ("Mollie Dashboard – herstelcodes (bewaar ze op een veilige plek)\n44428104\n14796684",
     "14796684"),
    # LLM chat logs: xAI's and Perplexity's keys, a notebook's output of an environment key, a
    # security question's answer after "I answered"
    ("use xai-wukITVJZk3uVy1BZvg9ixUFa72g7idgNCMrrpaetCPe5KTxRSctbD30fCC7thsvcZowLnIy8l8HGfYgj"
     " now",
     "xai-wukITVJZk3uVy1BZvg9ixUFa72g7idgNCMrrpaetCPe5KTxRSctbD30fCC7thsvcZowLnIy8l8HGfYgj"),
    ("key 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 fails",
     "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"),
    ("In [8]: os.environ[\"COHERE_API_KEY\"]\nOut[8]: 'QESuWpFmWKz9KTmULAMzHQcnk8bTzTwmmlg8PuLz'",
     "QESuWpFmWKz9KTmULAMzHQcnk8bTzTwmmlg8PuLz"),
    ("my bank asked the security question 'first pet's name', I answered Rusty and they",
     "Rusty"),
    # ham radio and makers: boards' Wi-Fi and MQTT logins, a sketch's char array, LoRaWAN root
    # keys, an APRS-IS passcode, TQSL's password, eQSL's PSWD, a logbook query's p=, IFTTT's
    # key, cloud-init's chpasswd, an OTA password, an API key "used by" a tool
    ("wlan.connect('FRITZ!Box 7590 XK', 'Bramble4000_')", "Bramble4000_"),
    ('client.connect("esp32rotor", "rotor", "H4rb0r!98");', "H4rb0r!98"),
    ('char pass[] = "RgT3qA0Ylr";', "RgT3qA0Ylr"),
    ("    --root-keys.app-key.key 17FA4C7757110DD0DBF26EC3605CE2B7",
     "17FA4C7757110DD0DBF26EC3605CE2B7"),
    ("IGSERVER euro.aprs2.net\nIGLOGIN VK3FUZ-10 26681\n", "26681"),
    ("$ tqsl -d -u -a all -c 2E0MZK -p 'Qr%GVT3vyAXkEoGMMSv' ~/logs/log.adi",
     "Qr%GVT3vyAXkEoGMMSv"),
    ("POST https://www.eQSL.cc/qslcard/ImportADIF.cfm?EQSL_USER=KD4DUU&EQSL_PSWD=balun1962COP&x=1",
     "balun1962COP"),
    ("GET https://www.hamqth.com/xml.php?u=ok2tex&p=3R9leYHcs9p6YB", "3R9leYHcs9p6YB"),
    ('String url = "https://maker.ifttt.com/trigger/soil_dry/with/key/iCygrve8VVwqcDdDM_ulzE";',
     "iCygrve8VVwqcDdDM_ulzE"),
    ('"user_data": "#cloud-config\\nchpasswd:\\n  list: |\\n    root:marconi-dipole-glacier89\\n"',
     "marconi-dipole-glacier89"),
    ("upload_flags =\n    --port=3232\n    --auth=P1x3l-58", "P1x3l-58"),
    ("// API key used by WaveLogGate: clac7c57dfa41ee", "clac7c57dfa41ee"),
    # French administration: a NIR written with its key apart, under an Italian name and an
    # English one, in a CSV column (Corsica's 2A), a digicode with a letter, "contactez-moi au"
    ("la CPAM mi ha assegnato il numero di previdenza sociale 2840999132711 30.",
     "2840999132711 30"),
    ("- French social security number: 1050276352554 54", "1050276352554 54"),
    ("matricule;nom;nir\n43152;GUÉRIN;250022A33847729", "250022A33847729"),
    ("- Digicode de l'entrée du cabinet : A3786", "A3786"),
    ("Bonjour, je n'ai pas reçu mon colis, contactez-moi au 0603747730 ou par mail", "0603747730"),
    # Dutch and Belgian services: a national number spaced, itsme's code, DigiD's activation
    # code, a PUK without a colon, a Markdown table's Mobiel column, security answers on the
    # next line in French and Dutch, a call-back number
    ("Beller: Griet Vandenbroucke, rijksregisternr. 780424 174 93", "780424 174 93"),
    ("Klant gaf zijn itsme-code (86191) aan de telefoon", "86191"),
    ("Met onderstaande activeringscode kunt u activeren.\nActiveringscode: XKF1-NR5X-2G1F",
     "XKF1-NR5X-2G1F"),
    ("J'ai reçu mon nouveau code PUK 241930922261 mais", "241930922261"),
    ("| Naam | Functie | Mobiel |\n|---|---|---|\n| Sem Peters | Monteur | 0637375881 |",
     "0637375881"),
    ("Question secrète : Nom de votre premier animal ?\nRéponse : Snuffie", "Snuffie"),
    ("Beveiligingsvraag: Naam van je eerste huisdier?\nAntwoord: Sint-Truiden", "Sint-Truiden"),
    ("Machtiging nog in behandeling. Terugbellen op 06 - 2449 3098 vóór vrijdag.",
     "06 - 2449 3098"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a shift's reference after an identity document's name, a log's next field after
    # "password", a secretary, systemd's LoadCredential, docker-compose's Secret names in a
    # list, a Windows crash's bucket id, a pipeline task at its version, a SIP contact, a
    # percent-encoded message, a contest log's score after "SINGLE-OP", a Wi-Fi network's
    # name before its masked password, a board's pins, a BLE characteristic's UUID, an INSEE
    # code, a Dutch SBI code, a driver's error code
    "Zabierz dowód osobisty lub paszport. Nr ref. S596361",
    "WARN auth.login rejected: reason=missing_field field=password user_id=WK54524 client=ios",
    "Call from the village hall bookings secretary: booking site showing redirects.",
    "LoadCredential=rclone.conf:/etc/credstore/rclone.conf",
    "MODULE_NAME: TeamViewerVPN\nFAILURE_BUCKET_ID:  0x9F_3_TeamViewerVPN!unknown_function",
    "steps:\n  - task: AzureCLI@2\n    inputs:",
    "grpc-status: 7\ngrpc-message: RBAC%3A%20access%20denied",
    "CATEGORY-OPERATOR: SINGLE-OP\nCATEGORY-BAND: ALL\nCLAIMED-SCORE: 745262",
    '[WiFi] connecting to "Workshop-2.4" (password: ********)',
    "[stepper_x]\nstep_pin: PF13\ndir_pin: !PF12\nenable_pin: !PF14",
    '#define KEYER_CFG_UUID         "961d061f-427b-420f-b293-613e13d5812d"',
    "Code commune INSEE : 33063 — code postal : 33000",
    "KvK-nummer: 65093020\nSBI-code: 8691 Fysiotherapie",
    "  ok: 0, code: 8000, codeName: 'AtlasError'",
])
def test_the_round_s_look_alikes_are_kept(text: str) -> None:
    assert _redact(text) == text
