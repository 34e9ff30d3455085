"""The round of corpora FL (Central Asia), FM (mainland South-East Asia), FN (South Asia beyond
India and Pakistan), FO (the German-speaking countries and the Benelux), FP (Greater China) and
FQ (the traffic of LLM-serving systems): each shape they found left or wrongly changed, redacted
or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # mainland South-East Asia
    ("SIM owner is me, Yu Yu Hlaing, NRC 12/KaMaYa(N)571605\nAgent:", "12/KaMaYa(N)571605"),
    ('"payer_nrc": "8/MaKaNa(N)881972", "merch_order_id"', "8/MaKaNa(N)881972"),
    ("B650677,U Zaw Win Naing,12/DaGaTa(Naing)724050,09-976-881-557,Dala",
     "12/DaGaTa(Naing)724050"),
    ("| 84 | Myint Myint Htwe | \u1041\u1042/\u101c\u101e\u101a(\u1015\u103c\u102f)\u1047\u1040"
     "\u1048\u1049\u1040\u1045 | ME441282 |",
     "\u1041\u1042/\u101c\u101e\u101a(\u1015\u103c\u102f)\u1047\u1040\u1048\u1049\u1040\u1045"),
    ("\u0e2a\u0e31\u0e0d\u0e0a\u0e32\u0e15\u0e34: \u0e40\u0e21\u0e35\u0e22\u0e19\u0e21\u0e32\n"
     "\u0e40\u0e25\u0e02\u0e1b\u0e23\u0e30\u0e08\u0e33\u0e15\u0e31\u0e27: 0-0121-30506-22-4\n"
     "\u0e2b\u0e19\u0e31\u0e07\u0e2a\u0e37\u0e2d\u0e40\u0e14\u0e34\u0e19\u0e17\u0e32\u0e07: MD103"
     "354",
     "0-0121-30506-22-4"),
    ('{"pid": "1120353410729", "fname": "\u0e2a\u0e21\u0e0a\u0e32\u0e22"}', "1120353410729"),
    ("GET /nhso-right/v1/person?pid=5500114270038 HTTP/1.1", "5500114270038"),
    ("\u0e8a\u0eb7\u0ec8: \u0ec1\u0eaa\u0e87\u0e94\u0eb2\u0ea7 \u0eaa\u0eb5\u0eaa\u0eb8\u0ea7"
     "\u0eb1\u0e99\n\u0ec0\u0ea5\u0e81\u0e9a\u0eb1\u0e94\u0e9b\u0eb0\u0e88\u0eb3\u0e95\u0ebb"
     "\u0ea7: 0208174172\n\u0ec0\u0e9a\u0eb5\u0ec2\u0e97: 020 5641 1031",
     "0208174172"),
    ("op=LTC msisdn=+8562099269752 doc_type=ID_CARD doc_no=1616518132 name=", "1616518132"),
    ("Employee: BUN THEARY | Personal TIN: P215-498488550 | National ID", "P215-498488550"),
    ("th\u00e0nh c\u00f4ng: s\u1ed1 \u0111\u1ecbnh danh 036071672312, h\u1ecd t\u00ean H\u1ed3 Th"
     "anh Nhung",
     "036071672312"),
    ("\u0110i\u1ec7n tho\u1ea1i di \u0111\u1ed9ng: 0352713305\nEmail: trung.ho97@yahoo.com",
     "0352713305"),
    ("Customer: ID 011259254, sim 061 988 293, ok", "061 988 293"),
    ("Kh\u00e1ch: ch\u1ecb \u01a1i em v\u1eeba nh\u1eadn \u0111\u01b0\u1ee3c tin nh\u1eafn m"
     "\u00e3 877194 t\u1eeb TPBank",
     "877194"),
    ("MoMo: 254304 la ma xac thuc giao dich", "254304"),
    ("STT,Ho va ten,Ma so BHXH,MST TNCN,So dien thoai\n1,Phan Hong Oanh,7539300058,8268566548,"
     "0988875555\n2,Nguyen Ngoc Trang,7464181403,8905291945,0784910819", "8268566548"),
    ("STT,Ho va ten,Ma so BHXH,MST TNCN,So dien thoai\n1,Phan Hong Oanh,7539300058,8268566548,"
     "0988875555\n2,Nguyen Ngoc Trang,7464181403,8905291945,0784910819", "0988875555"),
    # South Asia beyond India and Pakistan
    ("Online Security Clearance\nCID No.: 10375789775\nApplicant Name: Jigme", "10375789775"),
    ("SET status = 'SHORTLISTED' WHERE cid = '11038389058' AND exam_code", "11038389058"),
    ("Faas support: My ID card is A301091, email moosa@example.mv", "A301091"),
    ("Please confirm your ID card number?\nCALLER: A594829.", "A594829"),
    ('"event": "login.success", "idn": "A247239", "mobile": "+9607652940"', "A247239"),
    ("Birth Registration Number: 20163107390750410\nName: Rafsan Akter", "20163107390750410"),
    ("Pay slip\nEmployee: Dipendra KC\nEmployee PAN: 165801174\nBasic: NPR 105,697.00",
     "165801174"),
    ('"nic": "199356885399",\n    "tin": "206993002",', "206993002"),
    ("emp_id,name,line,grade,nid,mfs,wallet_no\nQC-50991,Moushumi Akter,L-6,6,2614720503839,"
     "bKash,01473210326\nFN-89081,Nusrat Jahan,L-1,4,19779378717244216,bKash,01775913359",
     "19779378717244216"),
    ("Hello Dialog, mage eZ Cash PIN eka 8868 da kiyala", "8868"),
    ("Upay: 617664 is your one-time password", "617664"),
    ("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e \u092a\u094d\u0930\u092e\u093e"
     "\u0923\u092a\u0924\u094d\u0930 \u0928\u0902.: \u0967\u096d-\u0966\u0968-\u096d"
     "\u0968-\u096e\u096c\u0966\u096f\u096b\n", "\u096e\u096c\u0966\u096f\u096b"),
    ('{"role": "user", "content": "My name is Anjali Adhikari, ID 05-02-67-91308, phone"}',
     "05-02-67-91308"),
    ("\u0f58\u0f72\u0f44\u0f0b\u0f0d \u0f40\u0f62\u0f58\u0f0b\n\u0f44\u0f7c\u0f0b\u0f66"
     "\u0fa4\u0fb2\u0f7c\u0f51\u0f0b\u0f68\u0f44\u0f0b\u0f0d \u0f21\u0f20\u0f29\u0f28"
     "\u0f29\u0f23\u0f23\u0f25\u0f23\u0f26\u0f27\n", "\u0f29\u0f23\u0f23\u0f25"),
    ("\u0ec0\u0ea5\u0e81\u0e9a\u0eb1\u0e94\u0e9b\u0eb0\u0e88\u0eb3\u0e95\u0ebb\u0ea7: "
     "\u0ed0\u0ed5\u0ed3\u0ed5\u0ed4\u0ed8\u0ed9\u0ed9\u0ed6\u0ed1\n", "\u0ed5\u0ed4\u0ed8"),
    ("B\u1ea2O HI\u1ec2M X\u00c3 H\u1ed8I VI\u1ec6T NAM\nTH\u1eba B\u1ea2O HI\u1ec2M Y "
     "T\u1ebe\nM\u00e3 s\u1ed1: HN4797970059516\nH\u1ecd v\u00e0 t\u00ean", "HN4797970059516"),
    ("\u0e43\u0e1a\u0e2d\u0e19\u0e38\u0e0d\u0e32\u0e15\u0e17\u0e33\u0e07\u0e32\u0e19"
     "\u0e40\u0e25\u0e02\u0e17\u0e35\u0e48: 348/2566-706277\n", "348/2566-706277"),
    ("\u0e9b\u0eb6\u0ec9\u0ea1\u0eaa\u0eb3\u0ea1\u0eb0\u0ec2\u0e99\u0e84\u0ebb\u0ea7"
     "\u0ec0\u0ea5\u0e81\u0e97\u0eb5: 89121\n", "89121"),
    ('"phone_number": "+84775275140",\n  "driving_license": {\n    "class": "A1",\n'
     '    "number": "797666421465"\n  },', "797666421465"),
    # Central Asia
    ("\u0e2b\u0e19\u0e31\u0e07\u0e2a\u0e37\u0e2d\u0e40\u0e14\u0e34\u0e19\u0e17\u0e32"
     "\u0e07: MD103354\n", "MD103354"),
    # a passport's optional data in its machine-readable zone (Kazakhstan's IIN)
    ("P<KAZOMAROV<<BEKZAT<<<<<<<<<<<<<<<<<<<<<<<<<\nN817330269KAZ6808219M3108077680821302882<<42",
     "680821302882"),
    ("> GET /v2/payments?status=Completed&customerIin=830410347058 HTTP/1.1", "830410347058"),
    ("Men Ernar Utepov. Meni\u0144 JSN-im 010921556959, telefon", "010921556959"),
    ('msg="tunduk lookup ok" pin=12110199724916 phone=996220393696', "12110199724916"),
    ("\u0420\u0430\u049b\u0430\u043c\u0438 \u043c\u0443\u0448\u0430\u0445\u0445\u0430\u0441\u0438"
     " \u0430\u043d\u0434\u043e\u0437\u0441\u0443\u043f\u043e\u0440\u0430\u043d\u0434\u0430 ("
     "\u0420\u041c\u0410): 593154740\n\u0428\u0438\u043d\u043e\u0441\u043d\u043e\u043c\u0430"
     "\u0438",
     "593154740"),
    ("\u041f\u0430\u0441\u043f\u043e\u0440\u0442 401075818, \u043c\u0438\u0433\u0440\u0430\u0446"
     "\u0438\u043e\u043d\u043d\u0430\u044f \u043a\u0430\u0440\u0442\u0430 7507 0451304. \u041c"
     "\u043e\u0436\u043d\u043e",
     "7507 0451304"),
    ("\u041f\u0430\u0442\u0435\u043d\u0442 \u043d\u0430 \u0440\u0430\u0431\u043e\u0442\u0443: "
     "\u0441\u0435\u0440\u0438\u044f 23 \u2116 2448258603\n\u0424\u0418\u041e: \u0428\u0430\u0440"
     "\u0438\u043f\u043e\u0432 \u0420\u0443\u0441\u0442\u0430\u043c",
     "23 \u2116 2448258603"),
    ("\u0418\u0418\u041d: 930806355181\n\u0412\u043e\u0434. \u0443\u0434\u043e\u0441\u0442\u043e"
     "\u0432\u0435\u0440\u0435\u043d\u0438\u0435: BA489055, \u043a\u0430\u0442. B",
     "BA489055"),
    ("Haydovchilik guvohnomasi: AG9208675\nToifalar: B, C", "AG9208675"),
    ("Famili\u00fdasy, ady: Hoja\u00fdewa A\u00fdna\nPasport: I-BN 419133, berlen senesi",
     "I-BN 419133"),
    ("\u0424.\u0418.\u0428.: \u0423\u043c\u0430\u0440\u043e\u0432 \u0423\u043b\u0443\u0493\u0431"
     "\u0435\u043a\n\u041f\u0430\u0441\u043f\u043e\u0440\u0442: AC \u2116 1294017, 20.07.2024",
     "AC \u2116 1294017"),
    ("\u0428\u0438\u043d\u043e\u0441\u043d\u043e\u043c\u0430\u0438 \u0448\u0430\u04b3"
     "\u0440\u0432\u0430\u043d\u0434\u04e3: 500622192, \u0430\u0437", "500622192"),
    ("applicant_id,full_name,iin,email\n21439,\u0423\u0442\u0435\u043f\u043e\u0432 \u0410"
     "\u0439\u0434\u043e\u0441,060227517290,aidos@example.kz\n82227,\u0418\u0441\u0430\u043a"
     "\u043e\u0432 \u0410\u0440\u043c\u0430\u043d,060407569310,arman@example.kz",
     "060227517290"),
    ("1. \u0410\u0434\u0438\u043b\u0435\u0442 \u041a\u0430\u0434\u044b\u0440\u043e\u0432 \u2014 0"
     " (779) 17-70-06\n2. \u041d\u0443\u0440\u0431\u0435\u043a",
     "0 (779) 17-70-06"),
    ("\u0425\u0430\u0431\u0430\u0440\u043b\u0430\u0441\u044b\u04a3\u044b\u0437: 8 (747) 771-35-60",
     "8 (747) 771-35-60"),
    ("shu raqamga qo\u2018ng\u2018iroq qiling 94 736-35-12\nKuryer", "94 736-35-12"),
    ("\u041c\u043e\u044f \u043a\u0430\u0440\u0442\u0430 \u042d\u043b\u043a\u0430\u0440\u0442 9417"
     " 6909 2664 8748 \u043d\u0435 \u043f\u0440\u0438\u043d\u0438\u043c\u0430\u0435\u0442\u0441"
     "\u044f",
     "9417 6909 2664 8748"),
    ("\u041a\u043e\u0434\u043e\u0432\u043e\u0435 \u0441\u043b\u043e\u0432\u043e \u0434\u043b"
     "\u044f \u0437\u0432\u043e\u043d\u043a\u043e\u0432 \u0432 \u0431\u0430\u043d\u043a: \u0410"
     "\u043b\u0430\u0442\u0430\u0443",
     "\u0410\u043b\u0430\u0442\u0430\u0443"),
    ("Uzum ID: 866356 \u2014 kirish kodi. Bu kodni", "866356"),
    ("0044 \u2014 \u043a\u043e\u0434 \u0434\u043b\u044f \u0432\u0445\u043e\u0434\u0430 \u0432 Jus"
     "an.",
     "0044"),
    ("Click: Tasdiqlash kodi 43003. Kodni hech kimga", "43003"),
    # Greater China
    ("[00:00:21] \u5ba2\u6237\uff1a410105199606241365\n[00:00:35] \u5750\u5e2d",
     "410105199606241365"),
    ("verify start certType=RESIDENCE_PERMIT_MO certNo=820000199709155143 name=",
     "820000199709155143"),
    ("Remitter name: YIP Kwok Wah\nRemitter ID No.: G306221(9)\nRemitter contact", "G306221(9)"),
    ("\u8acb\u651c\u5e36\u5065\u4fdd\u5361\uff08\u5361\u865f 000029702413\uff09\u65bc\u770b\u8a3a",
     "000029702413"),
    ("N.\u00ba do BIR / \u6fb3\u9580\u5c45\u6c11\u8eab\u4efd\u8b49\u7de8\u865f: 59931678\nTelem"
     "\u00f3vel",
     "59931678"),
    ("\u59d3\u540d,\u8bc1\u4ef6\u53f7\u7801,\u4e2a\u4eba\u516c\u79ef\u91d1\u8d26\u53f7,\u6708\u7f34\u5b58\u57fa\u6570\n\u90ed\u6653\u71d5,36010219620422758X,631666644316,20465\n"
     "\u66f9\u9896,44190019930219772X,940894487694,6625", "631666644316"),
    ("- Passport No.: E54094226\n- Exit-entry Permit (\u5f80\u6765\u6e2f\u6fb3\u901a\u884c\u8bc1)"
     ": CJ3588735\n",
     "CJ3588735"),
    ("HKID: D245696(7)\nCurrent permit no.: H67010198\nMobile", "H67010198"),
    ('"certType": "\u53f0\u6e7e\u5c45\u6c11\u6765\u5f80\u5927\u9646\u901a\u884c\u8bc1", "certNo":'
     ' "29942970", "mobile"',
     "29942970"),
    ("\u95ee\u98981\uff1a\u60a8\u6bcd\u4eb2\u7684\u59d3\u540d\u662f\uff1f  \u7b54\u6848\uff1a"
     "\u674e\u6842\u82b3\n\u95ee\u98982\uff1a",
     "\u674e\u6842\u82b3"),
    # the German-speaking countries and the Benelux
    ("Sozialversicherungsnummer: 52 280194 R 04 9\nGesetzliche Krankenkasse", "52 280194 R 04 9"),
    ("Familienkasse Sachsen\nKindergeld-Nr.: 782FK653271\nDatum", "782FK653271"),
    ("Betreff: \u00c4nderungsmitteilung \u2013 BG-Nummer 25581BG6623681", "25581BG6623681"),
    ("<vsdp:Versicherten_ID>W807260344</vsdp:Versicherten_ID>", "W807260344"),
    ("statement: SELECT * FROM patient WHERE kvnr = 'S767100757' AND praxis_id = 25;",
     "S767100757"),
    ("Benutzer-Identifikation: mlehner\nSteuernummer: 12-378/8713\nSVNR", "12-378/8713"),
    ("Steuer-ID J\u00fcrgen (geb. 09.02.2019): 21493097851\nDie Belege", "21493097851"),
    ("Versichertennummer / Kartennummer: 80756129396611415504\nAHV", "80756129396611415504"),
    ("P1.Vorname=Sandra\nP1.AHVN13=7560149264549\nP1.Geburtsdatum", "7560149264549"),
    ("BIS-nummer: 66.50.27-517.21 (aangemaakt door KSZ)", "66.50.27-517.21"),
    ("Personeelsnr;Naam;Voornaam;INSZ;IBAN\n1147;Vandenberghe;Els;87.08.05-548.21;"
     "BE70734758531925", "87.08.05-548.21"),
    ("Kaartnr / Card No: 592-3304314-90\nVervaldatum", "592-3304314-90"),
    ("Immigratie- en Naturalisatiedienst\nV-nummer: 8532290890\nNaam", "8532290890"),
    ("TAN f\u00fcr die \u00dcberweisung von 2.421,56 EUR an IBAN DE50370501988144087505: 229943. "
     "Geben",
     "229943"),
    ("Entsperrnummer (PUK): 8835653748\nSperrkennwort: LJGMBEIQ\nDie", "LJGMBEIQ"),
    # the traffic of LLM-serving systems
    ('[browser-agent] step 3: type(selector="#password", text="Estrela#3806!")\n[browser-agent]',
     "Estrela#3806!"),
    ("Keluhan dari Nurul Lestari (HP 6285627929412, email lestari.nurul@example.id)",
     "6285627929412"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    out = _redact(text)
    assert value not in out, out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("text", [
    # an order's and a serial's eighteen digits that pass a resident id's checks
    '{"orderNo":"440305198306159011","platform":"tmall","amount":690.00}',
    "\u8bf7\u67e5\u8be2\u6d41\u6c34\u53f7 110105198405078615 \u7684\u9000\u6b3e\u8fdb\u5ea6\u3002",
    # firms' numbers: a Nepali firm's PAN, a VAT/PAN, a Thai company's tax id (0 and its kind),
    # a Lao legal entity's taxpayer number, a Tajik organisation's РМА
    "Himalayan Traders Pvt. Ltd.\nPAN (Firm): 645026267 | VAT Bill No: 86855",
    "Himalayan Java Coffee Pvt. Ltd.\nVAT/PAN No.: 605377186\nBill No.: 1336/081-82",
    "\u0e1a\u0e23\u0e34\u0e29\u0e31\u0e17 \u0e01\u0e23\u0e38\u0e07\u0e40\u0e17\u0e1e\u0e01\u0e32"
    "\u0e23\u0e4c\u0e40\u0e21\u0e49\u0e19\u0e17\u0e4c \u0e08\u0e33\u0e01\u0e31\u0e14 (\u0e2a"
    "\u0e33\u0e19\u0e31\u0e01\u0e07\u0e32\u0e19\u0e43\u0e2b\u0e0d\u0e48)\n\u0e40\u0e25\u0e02"
    "\u0e1b\u0e23\u0e30\u0e08\u0e33\u0e15\u0e31\u0e27\u0e1c\u0e39\u0e49\u0e40\u0e2a\u0e35\u0e22"
    "\u0e20\u0e32\u0e29\u0e35 0-1254-86133-48-0",
    "\u0ec0\u0ea5\u0e81\u0e9b\u0eb0\u0e88\u0eb3\u0e95\u0ebb\u0ea7\u0e9c\u0eb9\u0ec9\u0ec0\u0eaa"
    "\u0e8d\u0ead\u0eb2\u0e81\u0ead\u0e99 (\u0e99\u0eb4\u0e95\u0eb4\u0e9a\u0eb8\u0e81\u0e84\u0ebb"
    "\u0e99): 335584301013",
    "\u0425\u0438\u0441\u043e\u0431\u043e\u0442\u0438 \u0440\u0430\u049b\u0430\u043c\u0438 122211"
    "7039 \u0430\u0437 22.01.2025, \u0428\u0418\u041d\u041e\u0421\u0410\u0418 \u0422\u0410\u0428"
    "\u041a\u0418\u041b\u041e\u0422 (\u0420\u041c\u0410): 098939737",
    # a US state's "MA" before a ZIP code; a code word's explanation, with no colon
    "Origin: Boston, MA 02215.",
    "\u041a\u043e\u0434\u043e\u0432\u043e\u0435 \u0441\u043b\u043e\u0432\u043e \u0437\u0430\u0434"
    "\u0430\u0451\u0442\u0441\u044f \u043f\u0440\u0438 \u043e\u0444\u043e\u0440\u043c\u043b\u0435"
    "\u043d\u0438\u0438 \u043a\u0430\u0440\u0442\u044b \u0438 \u0438\u0441\u043f\u043e\u043b"
    "\u044c\u0437\u0443\u0435\u0442\u0441\u044f \u0434\u043b\u044f \u0438\u0434\u0435\u043d\u0442"
    "\u0438\u0444\u0438\u043a\u0430\u0446\u0438\u0438.",
    # an ordinary number after "pin" (a four-digit PIN code is another detector's)
    "pin=12345678901234 phone",
    # a laptop's model after "HP"; a browser agent typing an e-mail field
    "laptop HP 15 dw1234 and HP 280 G4",
    'type(selector="#email", text="bob")',
    # a network card's "NIC" asked for, and an address in the reply
    "Agent: Which NIC is failing? Can you send the address?\nUser: 10.0.0.5 on eth0\n"
    "Agent: thanks",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("header", "kind"), [
    ("nid", "national_id_named"), ("JSHSHIR", "national_id_named"),
    ("Ma so BHXH", "national_id_named"), ("MST TNCN", "national_id_named"),
    ("INSZ", "national_id_named"), ("ID Card", "national_id_named"),
    ("\u4e2a\u4eba\u516c\u79ef\u91d1\u8d26\u53f7", "national_id_named"),
    ("\u4e2a\u4eba\u793e\u4fdd\u7f16\u53f7", "national_id_named"),
    ("\u8bc1\u4ef6\u53f7\u7801", "national_id_named"),
    ("So dien thoai", "phone"), ("Pasport", "passport"),
    ("\u041f\u0430\u0441\u043f\u043e\u0440\u0442", "passport"),
])
def test_the_rounds_column_names(header: str, kind: str) -> None:
    assert column_kind(header) == kind


@pytest.mark.parametrize(("text", "value"), [
    ("[00:00:15] T\u1ed5ng \u0111\u00e0i vi\u00ean: Anh \u0111\u1ecdc gi\u00fap em s\u1ed1 "
     "\u0111i\u1ec7n tho\u1ea1i \u0111\u0103ng k\u00fd \u1ea1\n[00:00:19] Kh\u00e1ch h\u00e0ng: "
     "0835 523 953\n[00:00:31] T\u1ed5ng \u0111\u00e0i vi\u00ean: V\u00e0 s\u1ed1 c\u0103n "
     "c\u01b0\u1edbc c\u00f4ng d\u00e2n \u1ea1\n[00:00:34] Kh\u00e1ch h\u00e0ng: 079 301 889 868\n"
     "[00:00:50] T\u1ed5ng \u0111\u00e0i vi\u00ean: D\u1ea1 em \u0111\u00e3 m\u1edf kh\u00f3a",
     "079 301 889 868"),
    ("[00:00:07] Anrufer: ja hallo ich wollte fragen\n[00:00:12] Agent: Gern, nennen Sie mir "
     "bitte Ihre Versichertennummer von der Karte\n[00:00:16] Anrufer: \u00e4h das ist P 049 239 "
     "223\n[00:00:25] Agent: danke", "049 239 223"),
    ("[00:00:09] CALLER: Amar number ta 01712345678, balance?\n[00:00:21] AGENT: Verification er "
     "jonno NID number ta bolben?\n[00:00:25] CALLER: 7931504838", "7931504838"),
])
def test_a_reply_to_an_ask_in_the_rounds_words_is_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize(("text", "value"), [
    # a Chinese shop's chat: its full-width colon, "please provide the mobile"
    ("[2023-02-13 12:00:25] \u552e\u540e-\u963f\u9752: \u60a8\u597d\u4eb2\uff0c\u8bf7"
     "\u63d0\u4f9b\u4e00\u4e0b\u4e0b\u5355\u65f6\u586b\u5199\u7684\u624b\u673a\u53f7"
     "\n[2023-02-13 12:01:05] \u9633\u5149\u660e\u5a9a: 130 7158 1028\n"
     "[2023-02-13 12:01:30] \u552e\u540e-\u963f\u9752: \u597d\u7684", "130 7158 1028"),
    ("\u5ba2\u670d\uff1a\u8bf7\u63d0\u4f9b\u60a8\u7684\u624b\u673a\u53f7\n"
     "\u5ba2\u6237\uff1a139 1234 5678\n\u5ba2\u670d\uff1a\u597d\u7684", "139 1234 5678"),
])
def test_a_reply_in_a_chinese_chat_is_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


def test_a_sheets_id_card_column_is_read_without_a_check() -> None:
    out = _redact("No,Name,ID Card,Line\n1,UM SAMNANG,099487034,L23\n2,LY VANNA,150993264,L15")
    assert "099487034" not in out and "150993264" not in out and "L23" in out
