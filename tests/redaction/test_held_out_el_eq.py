"""The round of corpora EL (the Gulf states), EM (West Africa), EN (East and Southern Africa),
EO (South-East Europe and the Black Sea), EP (the Nordics and the Baltics) and EQ (maritime
South-East Asia): each shape they found left or wrongly changed, redacted or kept in process;
and the conversation reading (redaction/dialogue.py) on the chats and call transcripts they
and the older corpora hold."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.dialogue import dialogue_findings

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # a chat's or a call's reply to the turn that asked: a code, an id, a phone, a card's
    # code, a security answer; speakers by name, by emoji, in brackets, as a session's input
    ("Customer: hi i never got the confirmation\nBot: I've sent a new 6-digit code. Please "
     "type it here.\nCustomer: 604569\nBot: Thanks!", "604569"),
    ("\U0001f916 Bot: Para vincular ingres\u00e1 tu n\u00famero de l\u00ednea\n"
     "\U0001f464 0981 891 679\n\U0001f916 Bot: Te enviamos un c\u00f3digo, escribilo ac\u00e1\n"
     "\U0001f464 288746\n\U0001f916 Bot: Listo", "288746"),
    ("AGENTE: \u00bfme indica su n\u00famero de documento?\nCLIENTE: s\u00ed, es el 32249531\n"
     "AGENTE: gracias.", "32249531"),
    ("[talebot] Hvad er dit CPR-nummer?\n[borger] 26 07 77 09 83\n[talebot] Og et "
     "telefonnummer?\n[borger] 40 74 03 00", "40 74 03 00"),
    ("Temsilci: Kart numaran\u0131z\u0131 alabilir miyim?\nM\u00fc\u015fteri: 4355 0523 4039 "
     "9561\nTemsilci: Kart\u0131n arkas\u0131ndaki \u00fc\u00e7 haneli g\u00fcvenlik kodu?\n"
     "M\u00fc\u015fteri: 10/29, 838\nTemsilci: Te\u015fekk\u00fcrler.", "838"),
    ("[00:00:04] AGENT: May I have your ID number please?\n[00:00:09] CALLER: yes, it's 784 198 "
     "881 778 611\n[00:00:21] AGENT: What is the answer to your security question?\n"
     "[00:00:27] CALLER: Simba\n[00:00:30] AGENT: Thank you", "Simba"),
    ("SASSA SRD: Please enter your South African ID number\n> 6810234867089\nPlease enter the "
     "cellphone number you used for your application\n> 0799412661\nYour SRD status: Approved",
     "0799412661"),
    ("[01/10/2024, 09:21] Agent (Kemi): Kindly send your registered phone number.\n"
     "[01/10/2024, 09:31] Customer: Na 08085938757.\n[01/10/2024, 09:50] Customer: abeg",
     "08085938757"),
    ("Ejen: Boleh saya dapatkan nombor telefon encik?\nPemanggil: 0 1 3 7 1 9 0 9 6 3\nEjen: "
     "Terima kasih, saya ulang ya, 0137190963.", "0137190963"),
    ("Petugas: NIK-nya berapa, Bu?\nPenelepon: 5371-0552-0875-0011\nPetugas: Baik.",
     "5371-0552-0875-0011"),
    # the Gulf: Oman's civil number, Bahrain's CPR, a resident card, a Saudi id after "هوية"
    # with words between, a passport in Malayalam, a delivery's PIN, a phone after a call's
    # words
    ("Customer onboarding\nCivil No: 4783353\nMobile: x", "4783353"),
    ("Name: Isa\nCPR No.: 870130577\nMobile: x", "870130577"),
    ("I, Vijay Pillai (Omani resident card no. 5029679), request", "5029679"),
    ("\u0631\u0642\u0645 \u0647\u0648\u064a\u0629 \u0627\u0644\u0637\u0627\u0644\u0628: "
     "1685307074\n", "1685307074"),
    ("\u0d0e\u0d28\u0d4d\u0d31\u0d46 \u0d2a\u0d3e\u0d38\u0d4d\u0d2a\u0d4b\u0d7c\u0d1f\u0d4d\u0d1f"
     "\u0d4d \u0d28\u0d2e\u0d4d\u0d2a\u0d7c N3394124 \u0d06\u0d23\u0d4d.", "N3394124"),
    ("Share delivery PIN 832822 with the courier only at handover.", "832822"),
    ("Customer note: call my wife 52141299 or me", "52141299"),
    ("We will contact you on 0541605179 when it is ready.", "0541605179"),
    # West Africa: a person's IFU in Benin, Ghana's NHIS and SSNIT, Nigeria's pension
    # PIN alone, Senegal's CNI spaced, Sierra Leone's NIN, Cameroon's CNPS and a person's
    # NIU, mobiles spaced as Cameroon and Senegal write them, a phone in Twi and Yoruba
    ("NPI : 1537877656\nIFU : 1200004735456\n", "1200004735456"),
    ("NHIS No: 13092546   Expiry: 08/2025", "13092546"),
    ("SSNIT No: H753501037652\nGhana Card: x", "H753501037652"),
    ("STF2457,Segun Afolabi,x,PEN969249702246,ARM Pension", "PEN969249702246"),
    ("N\u00b0 d'identification : 2 743 1986 11428", "2 743 1986 11428"),
    ("Mi nomba na 099 606 814 en mi NIN na G5RU71U6.", "G5RU71U6"),
    ("immatricul\u00e9(e) \u00e0 la CNPS sous le n\u00b0 593276995B,\nNIU P949963862738C",
     "P949963862738C"),
    ("j'ai envoy\u00e9 66 000 FCFA au 6 98 12 76 62 au lieu du", "6 98 12 76 62"),
    ("Nimero bi 77 701 83 62, code secret bi 3331.", "3331"),
    ("Me n\u0254ma ne 0573360732, PIN no ne 8525", "0573360732"),
    ("F\u00f3\u00f2n\u00f9: 08161842433. \u1eb8 \u1e63\u00e9 o.", "08161842433"),
    # East and Southern Africa: Uganda's NIN, Kenya's KRA PIN alone, Zambia's NRC and TPIN,
    # Rwanda's id spaced, Tanzania's NIDA, Botswana's Omang, Namibia's id, Zimbabwe's,
    # codes and passwords in Zulu, Swahili, Kinyarwanda and Luganda
    ("member_no,full_name,national_id\nM15806,Gloria,CM76746100SVPD", "CM76746100SVPD"),
    ("Personal Identification Number\nA034295785X\nThis is to certify", "A034295785X"),
    ('"national_id": "281756/59/1", "country": "ZM"', "281756/59/1"),
    ("NRC No.: 671121/93/1\nTPIN: 1065868516\nName: x", "1065868516"),
    ("Indangamuntu yanjye ni 1 1982 8 0545613 1 83, nimero", "1 1982 8 0545613 1 83"),
    ('{"nin": "19971228441408611476", "msisdn": "x"}', "19971228441408611476"),
    ("Nomore ya me ya Omang ke 990719215, nomore ya mogala ke +267 77 437 544.", "990719215"),
    ("I would like to lodge a complaint. ID No: 82100356932. Cell: x", "82100356932"),
    ("National ID No.: 38122143L63\nMobile: x", "38122143L63"),
    ("Ikhodi yakho yokuqinisekisa ngu-309994. Ungayinikezi muntu.", "309994"),
    ("Nambari yako ya uthibitisho ni 029450. Usimpe mtu yeyote.", "029450"),
    ("ngizamile iphasiwedi ethi Ubuntu3305$ ayisebenzi.", "Ubuntu3305$"),
    ("Ijambo ry'ibanga rya WiFi y'ibiro ni D%Fces44I8C0gnG, router", "D%Fces44I8C0gnG"),
    ("inombolo yefowuni ngu-0841336537. Kudala", "0841336537"),
    # South-East Europe: Bulgaria's and Cyprus's identity cards, Romania's by series and
    # number, Greece's ΑΔΤ, ΑΦΜ and ΑΜΚΑ in lower case, Moldova's IDNP as a key, codes in
    # Romanian, Turkish, Greek and English, a card's CVV as a gateway's parameter
    ("\u041b\u0438\u0447\u043d\u0430 \u043a\u0430\u0440\u0442\u0430 \u2116: AA3746991\n",
     "AA3746991"),
    ("- Identity card no. 9141385 (Republic of Cyprus)", "9141385"),
    ("CARTE DE IDENTITATE\nSERIA RX NR 335708\nCNP x", "335708"),
    ("\u0391.\u0394.\u03a4.: \u039a\u03a1 965502\n", "\u039a\u03a1 965502"),
    ("\u03c4\u03bf \u03b1\u03c6\u03bc 176798834? \u03c4\u03bf \u03b2\u03b1\u03b6\u03c9",
     "176798834"),
    ('"subject": {"idnp": "2010577101246", "phone": "x"}', "2010577101246"),
    ("BT: Codul de autorizare pentru plata de 1.525,00 RON este 101287.", "101287"),
    ("Isbank Mobil giris icin tek kullanimlik sifreniz 771493 dir.", "771493"),
    ("ALPHA BANK: Your one-time password for web banking is 71339325. Never share it.",
     "71339325"),
    ("PurchaseCurrency=978 CardNo=x CardExpDate=0228 CardCVV2=810 ClientIP", "810"),
    # the Nordics and the Baltics: Latvia's and Lithuania's codes after "p.k." and "a.k.",
    # Finland's veronumero and "hetuni", a Norwegian residence card, a driving licence,
    # an EHIC's personal number, a code as a JSON key, an APIS passport, one-time codes,
    # recovery codes in Swedish, phones in Icelandic and Latvian, an Estonian table
    ("Pacients: K\u0101rlis\nP.k.: 327193-20475\nT\u0101lrunis: 2856 3707", "327193-20475"),
    ("Pacients: K\u0101rlis\nP.k.: 327193-20475\nT\u0101lrunis: 2856 3707", "2856 3707"),
    ("Veronumero: 100041259651\nHenkil\u00f6tunnus: x", "100041259651"),
    ("Oppholdskort nr. R33781421\nNavn: x", "R33781421"),
    ("K\u00f8rekortnummer: 95940854\nCPR: x", "95940854"),
    ("6 Personal identification number: 100887-3875\n7 x", "100887-3875"),
    ('"customer": {"personalCode": "45111149360", "x": 1}', "45111149360"),
    ('"apis": {"docType": "P", "docNumber": "FH1728491", "x": 1}', "FH1728491"),
    ("Teie \u00fchekordne kinnituskood on 834000. \u00c4rge avaldage seda.", "834000"),
    ('"body":"Din engangskode til Rejsekort er 3899"', "3899"),
    ("\u00c5terst\u00e4llningskoder f\u00f6r tv\u00e5stegsverifiering (spara p\u00e5 s\u00e4ker "
     "plats):\ne9vy-ckce\nz9mq-tcek\n", "e9vy-ckce"),
    ("Kennitala 240402-8740, s\u00edman\u00famer 620 6113.", "620 6113"),
    ("Kuup\u00e4ev\tPatsient\tIsikukood\tTelefon\n2025-02-25\tK\u00e4tlin Tamm\t49708063812\t"
     "+372 58073362\n2025-11-19\tMari Vaher\t46012087882\t5894 3777", "46012087882"),
    ('{"user":"x","security_answer":"Tartu","updated":"2025"}', "Tartu"),
    # maritime South-East Asia: BPJS cards and KPJ, KWSP and income tax numbers, Brunei's
    # smart card, driving licences, an SSS number as a key, Malaysia's TAC, Indonesian's
    # "kode", a staff list's "Contact No", an INSERT with NOW() in its values
    ("No. Kartu BPJS Kesehatan: 0002356564333\nNo. KPJ: 24703240006", "24703240006"),
    ("No. Ahli KWSP: 79910241\nNo. Cukai Pendapatan: IG18837289240", "IG18837289240"),
    ("No. Kad Pengenalan Pintar: 01-783630\nWarna IC: Ungu", "01-783630"),
    ("No. SIM: 7810-4910-297354\nGolongan: C", "7810-4910-297354"),
    ("License No.: K29-01-998063\nViolation: x", "K29-01-998063"),
    ('"gov_ids": {"sss": "1683662735", "tin": "x"}', "1683662735"),
    ("Your TAC for DuitNow Transfer of RM2381.00 to PUBLIC BANK acc ending 1597 is 273410.",
     "273410"),
    ("Ibu: nak, ini ada sms kode 3669 dari gojek katanya", "3669"),
    ("EmpNo,Full Name,Contact No,Work Email\n139112,Ravi,9614 1024,x@y.sg\n008065,Ong,9040 2869,"
     "z@y.sg", "9040 2869"),
    ("INSERT INTO customers (id, full_name, ic_no, phone, created_at) VALUES\n(76038, 'Lim', "
     "'950227015333', '0126429992', NOW()),\n(95450, 'Kavitha', '021029100810', '01170478960', "
     "NOW());", "01170478960"),
    ("| Env | Username | Password | Notes |\n|---|---|---|---|\n| dev | maker19 | `sara1984` |"
     " read only |", "sara1984"),
    ("Yung number na tumawag po ay 09156460517, tapos", "09156460517"),
    ("passwordnya Laksa141*\nAndi: jgn diganti ya", "Laksa141*"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a US provider's NPI, a firm's IFU in Benin, a bank statement's 20-digit reference
    # that opens with a date, an e-Tax receipt number, a Chinese invoice's number, an order
    # id after a wallet's name, a fault's reference after "your line"
    "Rendering NPI: 2807579166\nBilled: $204.00",
    "COTONOU AGRO SERVICES SARL\nIFU : 3201068018627   RCCM : RB/COT/22 B 48293",
    "<AcctSvcrRef>20240717489577887054</AcctSvcrRef>",
    "e-Tax \u53d7\u4ed8\u756a\u53f7\uff1a20240318025044677877\u3000\u53d7\u4ed8\u65e5\u6642",
    "\u53d1\u7968\u53f7\u7801 51708607\uff0c\u53d1\u7968\u4ee3\u7801 487222623785",
    '{"payment_type":"gopay","order_id":"ORD-2024041800881","gross_amount":"152000.00"}',
    "Agent Priya: I can see a fault on your line, ref FLT-73042993.",
    '<sms protocol="0" address="GCash" date="1764268290967" type="1">',
    # a chat that asks for the last digits only, a postcode, or names a code in passing
    "Agente: no escriba el PIN. \u00bfMe confirma los \u00faltimos cuatro d\u00edgitos?\n"
    "Cliente: 3550\nAgente: Gracias.",
    "Conseiller : Votre date de naissance ?\nClient : Le 3 novembre 1982.\nConseiller : Et le "
    "code postal ?\nClient : 69003.\nConseiller : Parfait.",
    "dispatcher: trouble code 'CHECK 103' (wireless supervision)\ntech: yep, probably the "
    "5816 on the garage. do we have one in the van?\ndispatcher: you have 2.",
    "[04:18] Dispatch: order 64785930 ka pin dobara bhej rahe hain\n[04:19] Rider: ok, cash "
    "25.54 collect karna hai na?\n[04:19] Dispatch: haan",
    # a log's keys are no speakers; a Greek price list's "code" column
    "The following assertion was thrown during layout:\n  Row Row:file:///Users/dev/code/app/"
    "lib/price_row.dart:183:11\n  constraints: BoxConstraints(0.0<=w<=376.0)\n  size: "
    "Size(376.0, 40.0)\n  size: Size(1.0, 2.0)",
    "\u039a\u03a9\u0394\u0399\u039a\u039f\u03a3;EAN;\u03a0\u0395\u03a1\u0399\u0393\u03a1\u0391"
    "\u03a6\u0397;\u03a4\u0399\u039c\u0397\nGAJ-6751;5200662299612;x;5,76\nRJK-1234;"
    "5200662299629;y;4,10",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


def test_a_conversation_needs_a_speaker_who_speaks_again() -> None:
    form = "Name: Ana\nPhone: please send it?\nCode: 123456"
    assert dialogue_findings(form) == []
    chat = "Bot: please type the code we sent\nUser: 123456\nBot: thanks"
    assert [f.value for f in dialogue_findings(chat)] == ["123456"]


def test_a_reply_of_many_words_is_no_answer() -> None:
    chat = ("Bot: please type the code we sent\nUser: my order 55512345 was late and the "
            "driver was rude to my mother at the door again\nBot: sorry")
    assert dialogue_findings(chat) == []
